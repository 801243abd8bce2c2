// Repository URLs compared as Argo CD's webhook compares them: one key for every spelling of one repository.
import { isOciRepoURL, repoKey } from '../../../src/model/repo-url.js';

test('scheme, user, .git, a trailing slash and case do not count; scp-style host:path is host/path', () => {
  const keys = [
    'https://git.example.com/org/shop.git',
    'HTTPS://Git.Example.com/org/shop/',
    'ssh://git@git.example.com/org/shop.git',
    'git@git.example.com:org/shop',
    '  http://user@git.example.com/org/shop  ',
  ].map(repoKey);
  expect(new Set(keys)).toEqual(new Set(['git.example.com/org/shop']));
  // A port is not a path.
  expect(repoKey('ssh://git@git.example.com:2222/org/shop.git')).toBe('git.example.com:2222/org/shop');
  expect(repoKey('https://git.example.com/org/infra')).not.toBe(repoKey('https://git.example.com/org/shop'));
});

test('an oci:// repoURL (any case, spaces round it) is an OCI source; a registry without a scheme or an http(s) one is not', () => {
  expect(['oci://ghcr.io/org/app', ' OCI://127.0.0.1:5000/charts/web '].map(isOciRepoURL)).toEqual([true, true]);
  expect(['ghcr.io/org/charts', 'https://charts.example.com', '', undefined].map(isOciRepoURL)).toEqual([false, false, false, false]);
});
