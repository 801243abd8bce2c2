// Jest for the conformance suite (`npm run conformance`): the same Applications through Argo CD's own
// controller and through kubectl-gitops, on a control plane of its own that test/argocd/up starts. Kept
// out of jest.config.js so that `npm test` never needs Argo CD.
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }];
export default {
  displayName: 'conformance',
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
  modulePathIgnorePatterns: ['<rootDir>/plugin/.sea/', '<rootDir>/dist/', '<rootDir>/build/'],
  testMatch: ['<rootDir>/test/conformance/**/*.test.ts'],
  globalSetup: '<rootDir>/test/conformance/global-setup.ts',
  globalTeardown: '<rootDir>/test/conformance/global-teardown.ts',
  setupFilesAfterEnv: ['<rootDir>/test/integration/support/timeout.ts'],
  // One Argo CD controller serves every file: files run one after another, so the timings stay readable.
  maxWorkers: 1,
};
