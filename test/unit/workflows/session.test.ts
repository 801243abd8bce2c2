// A missing Application file or --desired path is reported as itself before any connection is
// attempted: with no kubeconfig at all, the error names the file, not the kubeconfig.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/app.js';
import { ExitCode, InputError } from '../../../src/cli/exit-codes.js';
import { memoryIo } from '../../../src/cli/io.js';
import { checkLocalSources } from '../../../src/workflows/session.js';

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kgitops-session-'));
  writeFileSync(join(dir, 'app.yaml'), 'apiVersion: argoproj.io/v1alpha1\nkind: Application\nmetadata: {name: shop}\nspec: {destination: {server: https://kubernetes.default.svc, namespace: shop}}\n');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('checkLocalSources', () => {
  it('accepts existing paths, stdin and absent sources', async () => {
    await expect(checkLocalSources({ appFile: join(dir, 'app.yaml'), desired: dir })).resolves.toBeUndefined();
    await expect(checkLocalSources({ desired: '-' })).resolves.toBeUndefined();
    await expect(checkLocalSources({})).resolves.toBeUndefined();
  });

  it('names a missing Application file, with the reader\'s wording and the cause kept', async () => {
    const missing = join(dir, 'nope.yaml');
    const err = await checkLocalSources({ appFile: missing, desired: dir }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InputError);
    expect((err as Error).message).toBe(`reading Application file ${missing}: ENOENT`);
    expect(((err as Error).cause as NodeJS.ErrnoException).code).toBe('ENOENT');
  });

  it('names a missing --desired path', async () => {
    const missing = join(dir, 'k8s');
    await expect(checkLocalSources({ appFile: join(dir, 'app.yaml'), desired: missing })).rejects.toThrow(`reading manifests from ${missing}: no such file or directory`);
  });
});

describe('cluster commands with no kubeconfig', () => {
  const env = { KUBECONFIG: join(tmpdir(), 'kgitops-no-such-kubeconfig'), HOME: join(tmpdir(), 'kgitops-no-such-home') };

  it.each(['diff', 'sync', 'status', 'prune'])('%s -f MISSING reports the file, exit 2', async (cmd) => {
    const m = memoryIo({ env });
    const missing = join(dir, 'missing.yaml');
    const code = await runCli([cmd, '-f', missing, '--desired', dir], m.io);
    expect(code).toBe(ExitCode.Input);
    expect(m.stderr()).toContain(`reading Application file ${missing}: ENOENT`);
    expect(m.stderr()).not.toMatch(/kubeconfig/i);
    expect(m.stdout()).toBe('');
  });

  it('with both files present, the kubeconfig is what is missing', async () => {
    const m = memoryIo({ env });
    const code = await runCli(['diff', '-f', join(dir, 'app.yaml'), '--desired', dir], m.io);
    expect(code).toBe(ExitCode.Input);
    expect(m.stderr()).toMatch(/kubeconfig/i);
  });
});
