// Build information, stamped by the bundler (plugin/build.mjs); "dev" values when run from source.

declare const __KGITOPS_VERSION__: string | undefined;
declare const __KGITOPS_COMMIT__: string | undefined;

export interface VersionInfo {
  version: string;
  gitCommit: string;
  nodeVersion: string;
  platform: string;
  arch: string;
}

export function versionInfo(): VersionInfo {
  return {
    version: typeof __KGITOPS_VERSION__ === 'string' ? __KGITOPS_VERSION__ : '0.0.0-dev',
    gitCommit: typeof __KGITOPS_COMMIT__ === 'string' ? __KGITOPS_COMMIT__ : 'unknown',
    nodeVersion: process.version,
    platform: process.platform,
    arch: process.arch,
  };
}
