// Fuzzing tracking-id parsing: any string parses or is reported malformed; build and parse are inverse.
import fc from 'fast-check';
import { buildTrackingId, parseTrackingId, stampTrackingId, trackingIdOf } from '../../../src/tracking/tracking-id.js';
import { kubeObject, RUNS } from './arbitraries.js';

const part = (forbidden: RegExp) => fc.string({ unit: 'binary', maxLength: 10 }).filter((s) => !forbidden.test(s));
const ALPHABET = fc.constantFrom(':', '/', 'a', 'B', '_', '.', '-', ' ', '\u00e9', '\u0000');

describe('tracking-id parsing', () => {
  it('any string: ok with parts that rebuild the exact string, or a reported malformed value', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string({ unit: 'binary', maxLength: 60 }),
          fc.array(ALPHABET, { maxLength: 20 }).map((a) => a.join('')),
        ),
        (s) => {
          const p = parseTrackingId(s);
          if (p.ok) {
            expect(`${p.id.app}:${p.id.group}/${p.id.kind}:${p.id.namespace}/${p.id.name}`).toBe(s);
            expect(p.id.app).not.toBe('');
          } else {
            expect(typeof p.error).toBe('string');
            expect(p.error.length).toBeGreaterThan(0);
          }
        },
      ),
      { numRuns: RUNS.tracking },
    );
  });

  it('build then parse returns the parts (app without ":", group/kind/namespace without ":" or "/", name without "/")', () => {
    fc.assert(
      fc.property(part(/[:]|^$/), part(/[:/]/), part(/[:/]/), part(/[:/]|^$/), part(/\//), (app, group, kind, namespace, name) => {
        const p = parseTrackingId(buildTrackingId(app, { group, kind, namespace, name }, 'dest'));
        expect(p).toEqual({ ok: true, id: { app, group, kind, namespace, name } });
      }),
      { numRuns: RUNS.tracking },
    );
  });

  it('a cluster-scoped key takes the destination namespace', () => {
    fc.assert(
      fc.property(part(/[:]|^$/), part(/[:/]|^$/), (app, dest) => {
        const p = parseTrackingId(buildTrackingId(app, { group: '', kind: 'Namespace', namespace: '', name: 'x' }, dest));
        expect(p.ok && p.id.namespace).toBe(dest);
      }),
      { numRuns: 300 },
    );
  });

  it('stamping never mutates the object and the stamp parses back to the object', () => {
    fc.assert(
      fc.property(kubeObject, (o) => {
        const before = structuredClone(o);
        const s = stampTrackingId(o, 'shop', 'dest');
        expect(o).toEqual(before);
        const p = parseTrackingId(trackingIdOf(s) ?? '');
        expect(p.ok && p.id.name).toBe(o.metadata.name);
        expect(p.ok && p.id.namespace).toBe(o.metadata.namespace ?? 'dest');
      }),
      { numRuns: RUNS.object },
    );
  });
});
