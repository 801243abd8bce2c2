// Fuzzing Application parsing: any value yields an Application or an InputError naming the origin, never a crash.
import fc from 'fast-check';
import { InputError } from '../../../src/model/errors.js';
import { parseApplication, parseSyncOptions } from '../../../src/app/application.js';
import { json, RUNS, tree } from './arbitraries.js';

const appLike = fc
  .record(
    {
      metadata: fc.oneof(
        fc.record({ name: fc.oneof(fc.string({ maxLength: 6 }), json), namespace: fc.oneof(fc.string({ maxLength: 6 }), json) }, { requiredKeys: [] }),
        json,
      ),
      spec: fc.oneof(
        fc.record(
          {
            source: fc.oneof(
              fc.record(
                { repoURL: fc.oneof(fc.string({ maxLength: 8 }), json), path: fc.oneof(fc.string({ maxLength: 8 }), json), targetRevision: json },
                { requiredKeys: [] },
              ),
              json,
            ),
            sources: json,
            destination: fc.oneof(fc.record({ namespace: fc.oneof(fc.string({ maxLength: 6 }), json), server: json }, { requiredKeys: [] }), json),
            syncPolicy: fc.oneof(
              fc.record(
                {
                  automated: fc.oneof(fc.record({ prune: json, selfHeal: fc.boolean(), allowEmpty: json }, { requiredKeys: [] }), json),
                  syncOptions: fc.oneof(
                    fc.array(
                      fc.oneof(
                        fc.string({ maxLength: 20 }),
                        fc.constantFrom(
                          'Prune=false',
                          'ServerSideApply=true',
                          'CreateNamespace=true',
                          'Bogus=yes',
                          'PrunePropagationPolicy=nope',
                          '=',
                          'Replace=true',
                        ),
                      ),
                      { maxLength: 4 },
                    ),
                    json,
                  ),
                  retry: json,
                },
                { requiredKeys: [] },
              ),
              json,
            ),
            ignoreDifferences: fc.oneof(
              fc.array(
                fc.oneof(
                  fc.record(
                    {
                      group: json,
                      kind: fc.oneof(fc.string({ maxLength: 6 }), json),
                      jsonPointers: fc.oneof(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), json),
                      jqPathExpressions: fc.oneof(fc.array(fc.string({ maxLength: 8 }), { maxLength: 2 }), json),
                      managedFieldsManagers: json,
                    },
                    { requiredKeys: [] },
                  ),
                  json,
                ),
                { maxLength: 3 },
              ),
              json,
            ),
          },
          { requiredKeys: [] },
        ),
        tree,
      ),
    },
    { requiredKeys: [] },
  )
  .map((o) => ({ apiVersion: 'argoproj.io/v1alpha1', kind: 'Application', ...o }));

describe('Application parsing fuzz', () => {
  it('any Application-shaped value: an Application or an InputError naming the origin and a field', () => {
    fc.assert(
      fc.property(fc.oneof(appLike, json), (v) => {
        const before = structuredClone(v);
        try {
          const app = parseApplication(v, 'app.yaml');
          expect(typeof app.name).toBe('string');
          expect(app.name.length).toBeGreaterThan(0);
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
          expect(err.message.startsWith('app.yaml')).toBe(true);
        }
        expect(v).toEqual(before);
      }),
      { numRuns: RUNS.app },
    );
  });

  it('any syncOptions list: parsed options, each unknown one reported as a warning', () => {
    fc.assert(
      fc.property(fc.array(fc.string({ maxLength: 24 }), { maxLength: 6 }), (list) => {
        const warnings: string[] = [];
        try {
          parseSyncOptions(list, (w) => warnings.push(w));
        } catch (err) {
          if (!(err instanceof InputError)) throw err;
        }
        for (const w of warnings) expect(typeof w).toBe('string');
      }),
      { numRuns: RUNS.app },
    );
  });
});
