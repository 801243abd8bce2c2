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

  it("ORs SkipDryRunOnMissingResource as gitops-engine does (sc.skipDryRunOnMissingResource || the annotation's =true): an annotation cannot switch the Application's off", () => {
    expect(objectSyncMode(obj(), { skipDryRunOnMissingResource: true }).skipDryRunOnMissingResource).toBe(true);
    expect(objectSyncMode(obj('SkipDryRunOnMissingResource=false'), { skipDryRunOnMissingResource: true }).skipDryRunOnMissingResource).toBe(true);
    expect(objectSyncMode(obj('SkipDryRunOnMissingResource=true'), {}).skipDryRunOnMissingResource).toBe(true);
  });

  it("reads Validate as sc.validate && !Validate=false, and Replace and Force ORed with the Application's, from the desired object only (an annotation cannot switch either on or off against the Application)", () => {
    expect(objectSyncMode(obj(), { replace: true, validate: false })).toMatchObject({ replace: true, validate: false });
    expect(objectSyncMode(obj('Replace=false,Validate=true'), { replace: true, validate: false })).toMatchObject({ replace: true, validate: false });
    expect(objectSyncMode(obj('Validate=false'), {})).toMatchObject({ validate: false });
    expect(objectSyncMode(obj('Replace=true'), { replace: false })).toMatchObject({ replace: true });
    // applyObject reads t.targetObj: the live object's annotation (put there by hand, or left from an earlier sync) is not read.
    expect(objectSyncMode(obj(), {})).toMatchObject({ replace: false, force: false });
  });

  it('finds an option anywhere in the annotation, as HasAnnotationOption does (Prune= and Delete= are read from their first entry)', () => {
    expect(objectSyncMode(obj('Replace=false,Replace=true'), {})).toMatchObject({ replace: true });
    expect(objectSyncMode(obj('ServerSideApply=true,ServerSideApply=false'), {})).toMatchObject({ serverSideApply: false, clientSideApply: true });
    expect(objectSyncMode(obj(' Validate=false '), {})).toMatchObject({ validate: false });
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
