// Jest in ESM mode (client-node is ESM-only): unit tests run anywhere, integration tests need
// the local control plane, started once by the global setup.
const tsJest = ['ts-jest', { useESM: true, tsconfig: 'tsconfig.json', diagnostics: { ignoreCodes: [151002] } }];
const common = {
  extensionsToTreatAsEsm: ['.ts'],
  moduleNameMapper: { '^(\\.{1,2}/.*)\\.js$': '$1' },
  transform: { '^.+\\.ts$': tsJest },
  testEnvironment: 'node',
  // Build output holds package.json copies that would clash in jest's module map.
  modulePathIgnorePatterns: ['<rootDir>/plugin/.sea/', '<rootDir>/dist/', '<rootDir>/build/'],
};
export default {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'], setupFilesAfterEnv: ['<rootDir>/test/support/unit-timeout.ts'] },
    {
      ...common,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/integration/global-setup.ts',
      globalTeardown: '<rootDir>/test/integration/global-teardown.ts',
      // jest ignores testTimeout inside a project: this file sets 180 s for integration tests.
      setupFilesAfterEnv: ['<rootDir>/test/integration/support/timeout.ts'],
    },
  ],
};
