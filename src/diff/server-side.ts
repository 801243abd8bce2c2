// Server-side diff's predicted object without what admission webhooks added (pure), as gitops-engine's
// removeWebhookMutation (pkg/diff/diff.go) prepares it unless the Application says IncludeMutationWebhook=true: every
// value of the server's dry-run result that our field manager does not own is put back to its live value (or left out
// when live has none), and what the dry-run removed stays removed. An apply's manager owns exactly the fields of the
// configuration it sent, so a field a webhook or a default added in the dry-run is nobody's and goes back to live.
import { keyedPath, fieldsOwnedBy, managedEntries } from '../ownership/index.js';
import { valueAt, type Step } from '../model/field-path.js';
import { isPlainObject, type JsonValue, type KubeObject } from '../model/object.js';
import type { FieldSet } from '../ownership/fieldset.js';

/**
 * The value at `at` of the predicted object as Argo CD compares it: kept where the manager owns it (a field it sent, or
 * an atomic list or map it sent whole); live's value where nothing below it is the manager's (undefined: live has
 * none, so it is left out); otherwise each member so, a map's or a list's (a list element of nobody's, say a sidecar
 * a webhook added, goes as a whole).
 */
function revert(
  value: JsonValue,
  at: Step[],
  ctx: { predicted: JsonValue; live: JsonValue; owned: FieldSet; entries: ReturnType<typeof managedEntries> },
): JsonValue | undefined {
  if (at.length > 0) {
    const path = keyedPath(ctx.predicted, at, ctx.entries);
    const below = ctx.owned.hasBelow(path);
    if (ctx.owned.has(path) && !below) return value;
    if (!below) return valueAt(ctx.live, path);
  }
  if (Array.isArray(value)) {
    const out: JsonValue[] = [];
    value.forEach((x, index) => {
      const v = revert(x, [...at, { index }], ctx);
      if (v !== undefined) out.push(v);
    });
    return out;
  }
  if (isPlainObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [field, x] of Object.entries(value)) {
      // The managedFields themselves are no field of the object (the comparison leaves them out).
      if (at.length === 1 && 'field' in at[0]! && at[0].field === 'metadata' && field === 'managedFields') {
        out[field] = x;
        continue;
      }
      const v = revert(x, [...at, { field }], ctx);
      if (v !== undefined) out[field] = v;
    }
    return out;
  }
  return valueAt(ctx.live, keyedPath(ctx.predicted, at, ctx.entries));
}

/**
 * The dry-run result with every value `manager` does not own put back to live's (or taken out): what Argo CD compares
 * with live when webhook mutations are not to count. Unchanged when the manager owns nothing in it (nothing to tell
 * its fields from the others').
 */
export function withoutMutations(predicted: KubeObject, live: KubeObject, manager: string): KubeObject {
  const owned = fieldsOwnedBy(predicted, manager);
  if (owned.size === 0) return predicted;
  const root = predicted as unknown as JsonValue;
  return revert(root, [], { predicted: root, live: live as unknown as JsonValue, owned, entries: managedEntries(predicted) }) as unknown as KubeObject;
}

/**
 * Whether an Application is compared by server-side diff, as Argo CD's controller decides (controller/state.go): its
 * compare-options `ServerSideDiff=true`, or the controller's setting unless the app says `ServerSideDiff=false`; and
 * whether webhook mutations then count (`IncludeMutationWebhook=true`). Undefined: the client-side comparison.
 */
export function serverSideDiffOf(
  app: { compareOptions?: { serverSideDiff?: boolean; includeMutationWebhook?: boolean } },
  controllerDefault: boolean,
): { includeMutationWebhook: boolean } | undefined {
  const on = app.compareOptions?.serverSideDiff ?? controllerDefault;
  return on ? { includeMutationWebhook: app.compareOptions?.includeMutationWebhook === true } : undefined;
}
