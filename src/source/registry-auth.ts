// Credentials for an OCI registry, as the user's own tools keep them: Helm's registry config (`helm registry login`:
// $HELM_REGISTRY_CONFIG, else <config home>/helm/registry/config.json), then Docker's ($DOCKER_CONFIG/config.json, else
// ~/.docker/config.json). In each, a credential helper for the host (`credHelpers`, else `credsStore`:
// docker-credential-<name> get) or the host's `auths` entry (`auth`: base64 of user:password, or username and
// password). Argo CD reads a registry's credentials from its repository Secrets; this tool, on your machine, reads
// yours, as it does for Git and Helm. A credential is never put in a message.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../model/errors.js';

export interface RegistryCredentials {
  username: string;
  password: string;
  /** The file the credentials came from (said in errors, never the credentials). */
  origin: string;
}

type Env = Record<string, string | undefined>;

/** The config files read, in order: Helm's registry config, then Docker's. */
export function registryConfigFiles(env: Env): string[] {
  const home = env.HOME ?? homedir();
  const configHome = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME !== '' ? env.XDG_CONFIG_HOME : join(home, '.config');
  const helm = env.HELM_REGISTRY_CONFIG && env.HELM_REGISTRY_CONFIG !== '' ? env.HELM_REGISTRY_CONFIG : join(configHome, 'helm', 'registry', 'config.json');
  const docker = join(env.DOCKER_CONFIG && env.DOCKER_CONFIG !== '' ? env.DOCKER_CONFIG : join(home, '.docker'), 'config.json');
  return [helm, docker];
}

/** A config key's host: `https://index.docker.io/v1/` and `ghcr.io` both name their host (with its port). */
function hostOf(key: string): string {
  return key.replace(/^[a-z]+:\/\//i, '').replace(/\/.*$/, '');
}

interface ConfigFile {
  auths?: Record<string, { auth?: unknown; username?: unknown; password?: unknown }>;
  credHelpers?: Record<string, unknown>;
  credsStore?: unknown;
}

/** `docker-credential-<helper> get` for the host: its Username and Secret, or undefined when it has none. */
function fromHelper(helper: string, host: string, file: string, env: Env): RegistryCredentials | undefined {
  if (!/^[A-Za-z0-9._-]+$/.test(helper)) throw new InputError(`${file}: the credential helper ${JSON.stringify(helper)} is not a helper name`);
  const run = spawnSync(`docker-credential-${helper}`, ['get'], { input: host, env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 30_000 });
  // A helper that is not installed (a Docker Desktop config carried to another machine), or that has nothing for the
  // host ("credentials not found", a non-zero exit): no credentials, and the registry is asked anonymously.
  if (run.error || run.status !== 0) return undefined;
  let got: { Username?: unknown; Secret?: unknown };
  try {
    got = JSON.parse(run.stdout) as typeof got;
  } catch {
    throw new InputError(`docker-credential-${helper} (named in ${file}) answered for ${host} with something that is not JSON`);
  }
  if (typeof got.Username !== 'string' || typeof got.Secret !== 'string') return undefined;
  return { username: got.Username, password: got.Secret, origin: `${file} (docker-credential-${helper})` };
}

/** The credentials for `registry` (host[:port]) in one config file, or undefined. */
function fromFile(file: string, registry: string, env: Env): RegistryCredentials | undefined {
  if (!existsSync(file)) return undefined;
  let config: ConfigFile;
  try {
    config = JSON.parse(readFileSync(file, 'utf8')) as ConfigFile;
  } catch {
    throw new InputError(`${file}: not a JSON registry config`);
  }
  const helper = config.credHelpers?.[registry];
  if (typeof helper === 'string' && helper !== '') return fromHelper(helper, registry, file, env);
  const entry = Object.entries(config.auths ?? {}).find(([key]) => hostOf(key) === registry)?.[1];
  if (entry && typeof entry.auth === 'string' && entry.auth !== '') {
    const decoded = Buffer.from(entry.auth, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    if (colon < 0) throw new InputError(`${file}: the auth entry for ${registry} is not base64 of user:password`);
    return { username: decoded.slice(0, colon), password: decoded.slice(colon + 1), origin: file };
  }
  if (entry && typeof entry.username === 'string' && typeof entry.password === 'string')
    return { username: entry.username, password: entry.password, origin: file };
  // A store for every registry, when the file has no entry of its own for this one.
  if (typeof config.credsStore === 'string' && config.credsStore !== '') return fromHelper(config.credsStore, registry, file, env);
  return undefined;
}

/** The user's credentials for `registry`, from the first config file that has some, or undefined (anonymous). */
export function registryCredentials(registry: string, env: Env): RegistryCredentials | undefined {
  for (const file of registryConfigFiles(env)) {
    const found = fromFile(file, registry, env);
    if (found) return found;
  }
  return undefined;
}

/** The `Authorization` value of HTTP basic authentication with these credentials. */
export function basicAuth(c: RegistryCredentials): string {
  return `Basic ${Buffer.from(`${c.username}:${c.password}`).toString('base64')}`;
}
