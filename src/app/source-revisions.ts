// `--revisions R… --source-positions N…` (or `--source-names S…`) for a multi-source Application, as `argocd app
// sync`, `diff` and `manifests` take them: each revision for the source at that 1-based position (or of that name),
// the others at their targetRevision. Pure; InputError naming the mismatch.
import { InputError } from '../model/errors.js';
import type { AppSource } from './types.js';

export interface SourceRevisionFlags {
  revisions?: readonly string[];
  sourcePositions?: readonly (string | number)[];
  sourceNames?: readonly string[];
}

/** The flags as given, checked for their shape (before any read). Undefined when none was given. */
export function sourceRevisionPins(f: SourceRevisionFlags): { revision: string; position?: number; name?: string }[] | undefined {
  const revisions = f.revisions ?? [];
  const positions = f.sourcePositions ?? [];
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
