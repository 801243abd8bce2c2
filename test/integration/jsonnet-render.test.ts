// Jsonnet in a directory source, evaluated by the engine embedded in the executable (go-jsonnet built to WebAssembly),
// equals the reference `jsonnet` CLI (the same go-jsonnet version, built by test/cluster/build) given the same TLAs,
// ext vars and library paths as Argo CD's repo-server passes.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_DIRECTORY, type JsonnetOptions } from '../../src/app/source-options.js';
import type { Application } from '../../src/app/types.js';
import { listTree } from '../../src/source/git.js';
import { commitFiles, renderSource } from '../../src/source/render/index.js';
import { jsonnetVersion, JSONNET_WASM_ENV } from '../../src/source/render/jsonnet.js';
import { JSONNET_FILES } from '../fixtures/render/apps.js';
import { GitFixture } from '../support/git-source.js';
import { clusterBin, repoRoot } from './support/index.js';

const PATH = 'jsonnet-guestbook';

describe('Jsonnet against the reference jsonnet CLI', () => {
  let fx: GitFixture;
  let sha: string;
  let env: Record<string, string | undefined>;

  beforeAll(() => {
    const wasm = process.env[JSONNET_WASM_ENV] ?? join(repoRoot, 'plugin', '.sea', 'jsonnet.wasm');
    if (!existsSync(wasm)) throw new Error(`${wasm} is missing: npm run build makes it`);
    env = { ...process.env, [JSONNET_WASM_ENV]: wasm };
    fx = new GitFixture();
    for (const [path, text] of Object.entries(JSONNET_FILES)) fx.write(path, text);
    fx.write(`${PATH}/values.yaml`, 'replicas: 2\n'); // not a Kubernetes object: passed over
    sha = fx.commit('jsonnet guestbook');
  });
  afterAll(() => fx?.cleanup());

  async function ours(jsonnet: JsonnetOptions, include = ''): Promise<unknown[]> {
    const app: Application = {
      name: 'gb',
      namespace: 'argocd',
      source: { repoURL: fx.repo, path: PATH, options: { directory: { ...DEFAULT_DIRECTORY, include, jsonnet } } },
      sourcesCount: 0,
      sourceOptions: {},
      destination: {},
      syncOptions: {} as Application['syncOptions'],
      ignoreDifferences: [],
      warnings: [],
      origin: 'app.yaml',
    };
    const dir = { gitDir: join(fx.repo, '.git'), env: fx.env };
    const r = await renderSource({
      files: commitFiles(dir, sha),
      label: fx.repo,
      sha,
      path: PATH,
      entries: await listTree(dir, sha, PATH),
      app,
      tools: { env, noCache: true },
    });
    expect(r.sourceType).toBe('Directory');
    return r.objects.map((o) => o.object);
  }

  function reference(file: string, args: string[]): unknown[] {
    const out = execFileSync(join(clusterBin(), 'jsonnet'), ['-J', join(fx.repo, PATH), ...args, join(fx.repo, PATH, file)], { encoding: 'utf8' });
    const v = JSON.parse(out) as unknown;
    return Array.isArray(v) ? v : [v];
  }

  it('is the same go-jsonnet version as the reference CLI', async () => {
    const version = await jsonnetVersion(env);
    expect(execFileSync(join(clusterBin(), 'jsonnet'), ['--version'], { encoding: 'utf8' })).toContain(version);
  });

  it('renders TLAs (string and code), ext vars (string and code) and libs as jsonnet does', async () => {
    const options: JsonnetOptions = {
      tlas: [
        { name: 'replicas', value: '1 + 2', code: true },
        { name: 'tier', value: 'front-$ARGOCD_APP_NAME', code: false },
      ],
      extVars: [
        { name: 'image', value: 'registry.example/guestbook-ui:${ARGOCD_APP_REVISION_SHORT}', code: false },
        { name: 'greeting', value: 'hello', code: false },
        { name: 'settings', value: '{ color: "blue", size: 3 }', code: true },
      ],
      libs: ['lib/jsonnet'],
    };
    const lib = ['-J', join(fx.repo, 'lib/jsonnet')];
    const ext = [
      '--ext-str',
      `image=registry.example/guestbook-ui:${sha.slice(0, 7)}`,
      '--ext-str',
      'greeting=hello',
      '--ext-code',
      'settings={ color: "blue", size: 3 }',
    ];
    const want = [
      ...reference('guestbook-ui.jsonnet', [...lib, ...ext, '--tla-code', 'replicas=1 + 2', '--tla-str', 'tier=front-gb']),
      ...reference('settings.jsonnet', [...lib, ...ext, '--tla-code', 'replicas=1 + 2', '--tla-str', 'tier=front-gb']),
    ];
    expect(want).toHaveLength(3);
    expect(await ours(options)).toEqual(want);
  });

  it('uses the defaults of a function without TLAs, and include picks the files', async () => {
    const options: JsonnetOptions = {
      tlas: [],
      extVars: [
        { name: 'image', value: 'x:1', code: false },
        { name: 'greeting', value: 'hi', code: false },
      ],
      libs: ['lib/jsonnet'],
    };
    const want = reference('guestbook-ui.jsonnet', ['-J', join(fx.repo, 'lib/jsonnet'), '--ext-str', 'image=x:1', '--ext-str', 'greeting=hi']);
    expect(await ours(options, 'guestbook-ui.jsonnet')).toEqual(want);
  });

  it("an evaluation error is exit 2's InputError with the engine's message and the file at the commit", async () => {
    const options: JsonnetOptions = { tlas: [], extVars: [], libs: ['lib/jsonnet'] };
    const p = ours(options, 'guestbook-ui.jsonnet');
    await expect(p).rejects.toThrow(
      new RegExp(`evaluating Jsonnet .*@${sha.slice(0, 7)}:${PATH}/guestbook-ui\\.jsonnet: .*Undefined external variable: (image|greeting)`),
    );
    await expect(ours({ tlas: [], extVars: [], libs: [] }, 'guestbook-ui.jsonnet')).rejects.toThrow(/couldn't open import "labels.libsonnet"/);
  });
});
