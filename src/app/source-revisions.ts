// `--revisions R… --source-positions N…` (or `--source-names S…`) for a multi-source Application, as `argocd app
// sync`, `diff` and `manifests` take them: each revision for the source at that 1-based position (or of that name),
// the others at their targetRevision; and which sources `plan`'s change from --base to --head moves (movedRevisions).
// Pure; InputError naming the mismatch.
import { InputError } from '../model/errors.js';
import type { AppSource } from './types.js';
import { isOciRepoURL, repoKey } from '../model/repo-url.js';

export interface SourceRevisionFlags {
  revisions?: readonly string[];
  sourcePositions?: readonly (string | number)[];
  sourceNames?: readonly string[];
}

/** The flags as given, checked for their shape (before any read). Undefined when none was given. */
export function sourceRevisionPins(f: SourceRevisionFlags): { revision: string; position?: number; name?: string }[] | undefined {
  const revisions = f.revisions ?? [];
  // argocd's --source-positions is an integer slice: `1,2` names two sources, as two flags would.
  const positions = (f.sourcePositions ?? []).flatMap((p) => String(p).split(','));
  const names = f.sourceNames ?? [];
  if (revisions.length === 0 && positions.length === 0 && names.length === 0) return undefined;
  if (positions.length > 0 && names.length > 0) throw new InputError('--source-positions and --source-names: name the sources one way');
  const by = positions.length > 0 ? '--source-positions' : '--source-names';
  const count = positions.length > 0 ? positions.length : names.length;
  if (revisions.length === 0) throw new InputError(`${by} needs --revisions, one revision for each`);
  if (count !== revisions.length)
    throw new InputError(
      `--revisions gives ${revisions.length} revision(s) and ${count === 0 ? 'no source is named (--source-positions or --source-names)' : `${by} ${count}: one for each`}`,
    );
  return revisions.map((revision, i) => {
    if (positions.length > 0) {
      const raw = String(positions[i]);
      const position = Number(raw);
      if (!/^\d+$/.test(raw.trim()) || position < 1) throw new InputError(`--source-positions ${raw}: a source's position counts from 1`);
      return { revision, position };
    }
    return { revision, name: names[i]! };
  });
}

/** The revision of each source, in spec.sources order (undefined: its targetRevision), for the pins given. */
export function pinnedRevisions(
  pins: readonly { revision: string; position?: number; name?: string }[],
  sources: readonly AppSource[] | undefined,
  app: string,
): (string | undefined)[] {
  if (!sources || sources.length === 0)
    throw new InputError(`--revisions with --source-positions/--source-names is for spec.sources, and ${app} has one source: use --revision`);
  const out: (string | undefined)[] = sources.map(() => undefined);
  for (const p of pins) {
    const i = p.position !== undefined ? p.position - 1 : sources.findIndex((s) => s.name === p.name);
    if (p.position !== undefined && i >= sources.length) throw new InputError(`--source-positions ${p.position}: ${app} has ${sources.length} sources`);
    if (i < 0) throw new InputError(`--source-names ${p.name ?? ''}: no source of ${app} has that name (${sources.map((s) => s.name ?? '-').join(', ')})`);
    if (out[i] !== undefined) throw new InputError(`source ${i + 1} of ${app} is given two revisions`);
    out[i] = p.revision;
  }
  return out;
}

/** A source as `plan` reads it to decide whether a change moves it (an AppSource, or a listed Application's raw source). */
export interface MovableSource {
  repoURL?: string;
  targetRevision?: string;
  /** Set for a Helm repository's chart. */
  chart?: string;
}

/** An Application's source as movingSources reads it. */
export function movableOf(s: AppSource): MovableSource {
  return {
    ...(s.repoURL !== undefined ? { repoURL: s.repoURL } : {}),
    ...(s.targetRevision !== undefined ? { targetRevision: s.targetRevision } : {}),
    ...(s.options?.chart !== undefined ? { chart: s.options.chart } : {}),
  };
}

/** Whether a change of `repo` (any repository when absent) from `base` moves this source (see movingSources). */
function followsBase(s: MovableSource, change: { base: string; repo?: string }): boolean {
  const url = s.repoURL ?? '';
  if (s.chart !== undefined || isOciRepoURL(url)) return false;
  if (change.repo !== undefined && repoKey(url) !== repoKey(change.repo)) return false;
  return (s.targetRevision || 'HEAD') === change.base;
}

/**
 * The positions (0-based) of the sources of a multi-source Application that a change from `base` moves: the Git
 * sources that follow `base` (their targetRevision; HEAD when empty) of `repo` when given, as Argo CD's webhook
 * refreshes an app when any one of its sources follows the pushed branch of the pushed repository. A Helm chart or an
 * OCI artifact never moves: its targetRevision is a version, not a branch a merge moves.
 */
export function movingSources(sources: readonly MovableSource[], change: { base: string; repo?: string }): number[] {
  return sources.flatMap((s, i) => (followsBase(s, change) ? [i] : []));
}

/**
 * The revisions `plan` reads an Application at: a change from `from` (of `repo`) read at `to` (absent: each source at
 * its targetRevision). One source: that source at `to`, whatever it follows (`--base` and `--head` name its
 * revisions), unless it is of another repository than `repo`. Several: the sources the change moves (movingSources)
 * at `to`, the others at their targetRevision. `unmoved`, said as a warning, when nothing moves and why. With
 * `followOnly` (an app a parent renders), one source moves as one of several would, and nothing moved is no warning:
 * a child pinned elsewhere is read as its spec at base and at head says.
 */
export function movedRevisions(
  app: { name: string; source?: AppSource; sources?: readonly AppSource[] },
  move: { from: string; to?: string; repo?: string; followOnly?: boolean },
): { revision?: string; revisions?: (string | undefined)[]; unmoved?: string } {
  if (app.sources === undefined) {
    const url = app.source?.repoURL ?? '';
    // An app a parent renders (plan --recursive): its one source moves as one of several would, only when it follows `from`.
    if (move.followOnly === true)
      return app.source !== undefined &&
        move.to !== undefined &&
        followsBase(movableOf(app.source), { base: move.from, ...(move.repo !== undefined ? { repo: move.repo } : {}) })
        ? { revision: move.to }
        : {};
    if (move.repo !== undefined && repoKey(url) !== repoKey(move.repo))
      return { unmoved: `the source of ${app.name} is another repository (${url}): it is read at its targetRevision at base and at head` };
    return move.to !== undefined ? { revision: move.to } : {};
  }
  const sources = app.sources.map(movableOf);
  const moving = new Set(movingSources(sources, { base: move.from, ...(move.repo !== undefined ? { repo: move.repo } : {}) }));
  if (moving.size === 0 && move.followOnly === true) return {};
  if (moving.size === 0) {
    const follows = sources.map((s, i) => `${i + 1}: ${s.chart !== undefined ? `chart ${s.chart} ` : ''}${s.targetRevision || 'HEAD'}`).join(', ');
    return {
      unmoved: `none of the ${sources.length} sources of ${app.name} follows ${move.from}${move.repo !== undefined ? ` of ${move.repo}` : ''} (${follows}): every source is read at its targetRevision at base and at head`,
    };
  }
  return { revisions: sources.map((_, i) => (moving.has(i) ? move.to : undefined)) };
}
