// Which live objects an app owns by its mark, and why each other object is not (never guessed at).
import type { KubeObject } from '../model/object.js';
import { displayName, keyOf } from '../model/object.js';
import { isSelfReferenced, parseTrackingId, trackingIdOf } from './tracking-id.js';

export type NotOwnedReason =
  | { code: 'unmarked' }
  | { code: 'malformed'; value: string; error: string }
  | { code: 'other-app'; app: string }
  | { code: 'not-self'; value: string }
  | { code: 'has-owner'; owner: string };

export interface Selection {
  owned: KubeObject[];
  notOwned: { object: KubeObject; reason: NotOwnedReason }[];
}

/** Why an object is not this app's root object, or undefined when it is. */
export function ownershipVerdict(obj: KubeObject, appInstance: string): NotOwnedReason | undefined {
  const value = trackingIdOf(obj);
  if (value === undefined) return { code: 'unmarked' };
  const parsed = parseTrackingId(value);
  if (!parsed.ok) return { code: 'malformed', value, error: parsed.error };
  if (parsed.id.app !== appInstance) return { code: 'other-app', app: parsed.id.app };
  if (!isSelfReferenced(keyOf(obj), parsed.id)) return { code: 'not-self', value };
  const owner = obj.metadata.ownerReferences?.[0];
  if (owner) return { code: 'has-owner', owner: displayName(owner) };
  return undefined;
}

/** Splits live objects into those this app owns (its mark, naming the object itself, no owner) and the rest. */
export function selectOwned(liveObjects: readonly KubeObject[], appInstance: string): Selection {
  const out: Selection = { owned: [], notOwned: [] };
  for (const object of liveObjects) {
    const reason = ownershipVerdict(object, appInstance);
    if (reason) out.notOwned.push({ object, reason });
    else out.owned.push(object);
  }
  return out;
}

/** A one-line explanation of a reason, for tables and -v. */
export function describeNotOwned(r: NotOwnedReason): string {
  switch (r.code) {
    case 'unmarked':
      return 'no tracking-id';
    case 'malformed':
      return `malformed tracking-id "${r.value}": ${r.error}`;
    case 'other-app':
      return `tracked by application ${r.app.replace('_', '/')}`;
    case 'not-self':
      return `tracking-id "${r.value}" names another object (copied mark)`;
    case 'has-owner':
      return `has an owner (${r.owner})`;
  }
}
