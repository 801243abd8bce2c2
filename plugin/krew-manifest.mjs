// Makes the krew manifest (dist/gitops.yaml, named after the plugin as krew-index and its validator want it) from
// the committed template, krew-manifest.yaml at the repository root, and the archives `npm run package` built: the template
// holds everything a reviewer reads (description, caveats, platforms, files) and no sha256, so nothing committed
// can go stale as the sources change; the sums exist only beside the archives they describe.
//
// Follows krew's validator (sigs.k8s.io/krew internal/index/validation): apiVersion
// krew.googlecontainertools.github.com/v1alpha2, a `v`-prefixed semver, a one-line
// shortDescription, selectors on os/arch only, lowercase 64-hex sha256, one platform per os/arch.
import { parse, stringify } from 'yaml';

export const KREW_API_VERSION = 'krew.googlecontainertools.github.com/v1alpha2';
export const PLUGIN_NAME = 'gitops';
/** Where releases are published (the project's GitHub repository; an assumption until it exists). */
export const HOMEPAGE = 'https://github.com/kubectl-gitops/kubectl-gitops';
/** The committed template, relative to the repository root. */
export const TEMPLATE_PATH = 'krew-manifest.yaml';

/** The release download URL krew fetches for one archive. */
export function releaseUri(version, archiveName) {
  return `${HOMEPAGE}/releases/download/v${version}/${archiveName}`;
}

const SUPPORTED = new Set([
  'darwin/amd64',
  'darwin/arm64',
  'linux/amd64',
  'linux/arm',
  'linux/arm64',
  'linux/ppc64le',
  'linux/s390x',
  'linux/loong64',
  'windows/amd64',
  'windows/arm64',
  'windows/386',
]);

function fail(message) {
  throw new Error(`making the krew manifest: ${message}`);
}

/**
 * The manifest text: the template with `{{version}}` filled in and each platform's sha256 set from the archive built
 * for it (`platforms`: {os, arch, archiveName, sha256, bin, files}). Throws on anything krew's validator would reject
 * and on any mismatch between the template and the archives (a platform without an archive or the other way round,
 * another archive name, executable or file list), except that with `partial` a template platform no archive was
 * built for is left out (a local package run that could not fetch a platform's Node).
 */
export function krewManifest({ template, version, platforms, inputsCommit, partial = false }) {
  if (!/^\d+\.\d+\.\d+(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?$/.test(version)) fail(`version "${version}" is not semver`);
  if (platforms.length === 0) fail('no platforms');
  const seen = new Set();
  for (const p of platforms) {
    const key = `${p.os}/${p.arch}`;
    if (!SUPPORTED.has(key)) fail(`${key} is not a platform krew knows`);
    if (seen.has(key)) fail(`${key} appears twice`);
    seen.add(key);
    if (!/^[a-f0-9]{64}$/.test(p.sha256)) fail(`bad sha256 for ${key}: ${p.sha256}`);
    if (!/\.(tar\.gz|zip)$/.test(p.archiveName)) fail(`${p.archiveName} is not .tar.gz or .zip`);
    if (p.files && !p.files.includes(p.bin)) fail(`${key} lists files without its executable ${p.bin}`);
  }
  if (/sha256\s*:/.test(template)) fail(`the template ${TEMPLATE_PATH} carries a sha256: the sums come from the archives only`);
  const filled = template.replaceAll('{{version}}', version);
  const left = /\{\{[^}]*\}\}/.exec(filled);
  if (left) fail(`the template holds ${left[0]}, which nothing fills in (only {{version}} is)`);
  const doc = parse(filled);
  if (doc?.apiVersion !== KREW_API_VERSION || doc.kind !== 'Plugin') fail(`the template is no ${KREW_API_VERSION} Plugin`);
  if (doc.metadata?.name !== PLUGIN_NAME) fail(`the template names the plugin ${doc.metadata?.name}, not ${PLUGIN_NAME}`);
  if (typeof doc.spec?.shortDescription !== 'string' || /[\r\n]/.test(doc.spec.shortDescription)) fail('shortDescription must be one line');
  const keyOf = (t) => `${t.selector?.matchLabels?.os}/${t.selector?.matchLabels?.arch}`;
  const inTemplate = new Set((doc.spec.platforms ?? []).map(keyOf));
  for (const p of platforms)
    if (!inTemplate.has(`${p.os}/${p.arch}`)) fail(`an archive was built for ${p.os}/${p.arch}, which the template has no platform for`);
  const out = [];
  for (const t of doc.spec.platforms) {
    const key = keyOf(t);
    const p = platforms.find((x) => `${x.os}/${x.arch}` === key);
    if (!p) {
      if (partial) continue;
      fail(`the template's platform ${key} has no archive`);
    }
    if (t.uri !== releaseUri(version, p.archiveName)) fail(`${key}: the template's uri ${t.uri} is not the archive's, ${releaseUri(version, p.archiveName)}`);
    if (t.bin !== p.bin) fail(`${key}: the template's bin ${t.bin} is not the archive's executable ${p.bin}`);
    const listed = (t.files ?? []).map((f) => f.from).sort();
    const built = [...(p.files ?? [])].sort();
    if (JSON.stringify(listed) !== JSON.stringify(built))
      fail(`${key}: the template lists the files ${listed.join(', ')}, the archive holds ${built.join(', ')}`);
    out.push({ selector: t.selector, uri: t.uri, sha256: p.sha256, ...(t.files ? { files: t.files } : {}), bin: t.bin });
  }
  doc.spec.platforms = out;
  const header =
    `# Generated by plugin/package.mjs (npm run package) from ${TEMPLATE_PATH} and the archives in dist/: do not edit.\n` +
    (inputsCommit ? `# The archives are built reproducibly from the build inputs as of commit ${inputsCommit}.\n` : '');
  return header + stringify(doc, { lineWidth: 0 });
}
