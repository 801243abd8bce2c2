import { objectSyncMode, resourceSyncOptions } from '../../../src/sync/options.js';
import type { KubeObject } from '../../../src/model/object.js';

const obj = (opts?: string): KubeObject =>
  ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: 'a', ...(opts ? { annotations: { 'argocd.argoproj.io/sync-options': opts } } : {}) },
  }) as KubeObject;

describe('argocd.argoproj.io/sync-options on one object', () => {
  it('defaults: applied, validated, not replaced', () => {
    expect(objectSyncMode(obj(), {})).toEqual({
      replace: false,
      force: false,
      validate: true,
      skipDryRunOnMissingResource: false,
      clientSideApply: false,
      serverSideApply: false,
      warnings: [],
    });
  });

  it('a key given twice: the first entry is read, as gitops-engine GetAnnotationOptionValue reads Prune= and Delete=', () => {
    const o = resourceSyncOptions(obj('Prune=false, Prune=true,Delete=confirm,Delete=true'));
    expect([o.get('Prune'), o.get('Delete')]).toEqual(['false', 'confirm']);
  });

  it('reads Replace, Force, Validate, SkipDryRunOnMissingResource and ServerSideApply=false, whitespace trimmed', () => {
    expect(objectSyncMode(obj('Replace=true, Force=true,Validate=false , SkipDryRunOnMissingResource=true, ServerSideApply=false'), {})).toEqual({
      replace: true,
      force: true,
      validate: false,
      skipDryRunOnMissingResource: true,
      clientSideApply: true,
      serverSideApply: false,
      warnings: [],
    });
    expect(objectSyncMode(obj('ServerSideApply=true'), {}).clientSideApply).toBe(false);
  });

  it("ServerSideApply=true asked for, as Argo CD would apply it server-side: the annotation, else the Application's option", () => {
    expect(objectSyncMode(obj('ServerSideApply=true'), {}).serverSideApply).toBe(true);
    expect(objectSyncMode(obj(), { serverSideApply: true }).serverSideApply).toBe(true);
    expect(objectSyncMode(obj('ServerSideApply=false'), { serverSideApply: true }).serverSideApply).toBe(false);
    expect(objectSyncMode(obj(), { serverSideApply: false }).serverSideApply).toBe(false);
  });

  it("takes the Application's SkipDryRunOnMissingResource as the default; the annotation wins", () => {
    expect(objectSyncMode(obj(), { skipDryRunOnMissingResource: true }).skipDryRunOnMissingResource).toBe(true);
    expect(objectSyncMode(obj('SkipDryRunOnMissingResource=false'), { skipDryRunOnMissingResource: true }).skipDryRunOnMissingResource).toBe(false);
  });

  it("takes the Application's Validate as default, the annotation winning; Replace as gitops-engine ORs it (an annotation cannot switch it off)", () => {
    expect(objectSyncMode(obj(), { replace: true, validate: false })).toMatchObject({ replace: true, validate: false });
    expect(objectSyncMode(obj('Replace=false,Validate=true'), { replace: true, validate: false })).toMatchObject({ replace: true, validate: true });
    expect(objectSyncMode(obj('Replace=true'), { replace: false })).toMatchObject({ replace: true });
  });

  it('warns that an Application-level option on a resource does nothing, as in Argo CD (RespectIgnoreDifferences, ApplyOutOfSyncOnly, ...)', () => {
    expect(objectSyncMode(obj('RespectIgnoreDifferences=true,ApplyOutOfSyncOnly=true,Replace=true'), {})).toMatchObject({
      replace: true,
      warnings: [
        "argocd.argoproj.io/sync-options RespectIgnoreDifferences=true: Argo CD reads RespectIgnoreDifferences only from the Application's spec.syncPolicy.syncOptions, not from a resource; ignored",
        "argocd.argoproj.io/sync-options ApplyOutOfSyncOnly=true: Argo CD reads ApplyOutOfSyncOnly only from the Application's spec.syncPolicy.syncOptions, not from a resource; ignored",
      ],
    });
  });

  it('warns, naming the option, about what is not a sync option and a value it cannot take', () => {
    // Prune=maybe is the first Prune= entry, so it is the one read (and warned of), not the Prune=confirm after it.
    expect(objectSyncMode(obj('Replce=true,Prune=maybe,Prune=confirm,ServerSideApply=false'), {}).warnings).toEqual([
      'argocd.argoproj.io/sync-options Replce=true is not a sync option Argo CD knows; ignored',
      'argocd.argoproj.io/sync-options Prune=maybe: expected false or confirm or true; ignored',
    ]);
    expect(objectSyncMode(obj('Prune=maybe'), {}).warnings).toEqual([
      'argocd.argoproj.io/sync-options Prune=maybe: expected false or confirm or true; ignored',
    ]);
  });
});
