// Types for plugin/krew-manifest.mjs (so TypeScript tests can import it).
export declare const KREW_API_VERSION: string;
export declare const PLUGIN_NAME: string;
export declare const HOMEPAGE: string;
export declare const TEMPLATE_PATH: string;
export declare function releaseUri(version: string, archiveName: string): string;
export interface KrewPlatform {
  os: string;
  arch: string;
  archiveName: string;
  sha256: string;
  bin: string;
  /** The archive's files (the template's file list must be the same). */
  files?: string[];
}
export declare function krewManifest(opts: { template: string; version: string; platforms: KrewPlatform[]; inputsCommit?: string; partial?: boolean }): string;
