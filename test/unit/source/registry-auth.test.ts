// The user's registry credentials, as helm registry login and Docker keep them: which files are read, in which order,
// a credential helper, an auths entry, and that nothing there is ever said but the file's name.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { basicAuth, registryConfigFiles, registryCredentials } from '../../../src/source/registry-auth.js';
import { tempDir } from '../../support/temp-dir.js';

describe('registryCredentials', () => {
  it('reads $HELM_REGISTRY_CONFIG, else helm/registry/config.json in the config home, then $DOCKER_CONFIG/config.json, else ~/.docker', () => {
    expect(registryConfigFiles({ HOME: '/h' })).toEqual(['/h/.config/helm/registry/config.json', '/h/.docker/config.json']);
    expect(registryConfigFiles({ HOME: '/h', XDG_CONFIG_HOME: '/x', DOCKER_CONFIG: '/d' })).toEqual(['/x/helm/registry/config.json', '/d/config.json']);
    expect(registryConfigFiles({ HOME: '/h', HELM_REGISTRY_CONFIG: '/r.json' })).toEqual(['/r.json', '/h/.docker/config.json']);
  });

  it('matches an auths key by its host (a URL with a scheme and a path names its host and port)', () => {
    const h = tempDir('oci-creds-keys');
    mkdirSync(join(h, '.docker'), { recursive: true });
    writeFileSync(join(h, '.docker', 'config.json'), JSON.stringify({ auths: { 'https://registry.example.com:5000/v2/': { username: 'u', password: 'p' } } }));
    const found = registryCredentials('registry.example.com:5000', { HOME: h });
    expect(found).toEqual({ username: 'u', password: 'p', origin: join(h, '.docker', 'config.json') });
    expect(basicAuth(found!)).toBe(`Basic ${Buffer.from('u:p').toString('base64')}`);
    expect(registryCredentials('registry.example.com', { HOME: h })).toBeUndefined();
  });

  it('refuses a config that is not JSON or an auth that is not user:password, naming the file and not its contents', () => {
    const h = tempDir('oci-creds-bad');
    mkdirSync(join(h, '.docker'), { recursive: true });
    const file = join(h, '.docker', 'config.json');
    writeFileSync(file, '{"auths": {"ghcr.io": {"auth": "c2VjcmV0"}}}');
    expect(() => registryCredentials('ghcr.io', { HOME: h })).toThrow(`${file}: the auth entry for ghcr.io is not base64 of user:password`);
    writeFileSync(file, 'not json, secret-token-here');
    expect(() => registryCredentials('ghcr.io', { HOME: h })).toThrow(`${file}: not a JSON registry config`);
  });

  it('passes over a credsStore helper that is not installed (anonymous), and prefers the Helm registry config to Docker', () => {
    const h = tempDir('oci-creds-home');
    mkdirSync(join(h, '.docker'), { recursive: true });
    writeFileSync(join(h, '.docker', 'config.json'), JSON.stringify({ credsStore: 'no-such-helper-here' }));
    expect(registryCredentials('ghcr.io', { HOME: h, PATH: '/nonexistent' })).toBeUndefined();
    mkdirSync(join(h, '.config', 'helm', 'registry'), { recursive: true });
    writeFileSync(
      join(h, '.config', 'helm', 'registry', 'config.json'),
      JSON.stringify({ auths: { 'ghcr.io': { auth: Buffer.from('u:p:with:colons').toString('base64') } } }),
    );
    expect(registryCredentials('ghcr.io', { HOME: h })).toEqual({
      username: 'u',
      password: 'p:with:colons',
      origin: join(h, '.config', 'helm', 'registry', 'config.json'),
    });
    expect(registryCredentials('quay.io', { HOME: h, PATH: '/nonexistent' })).toBeUndefined();
  });
});
