// The Argo CD Application tests declare: as the object the API returns, and as the YAML of a file `-f` reads.
import { stringify } from 'yaml';
import type { KubeObject } from '../../src/model/object.js';

export interface ApplicationFields {
  /** Default `shop`. */
  name?: string;
  /** Where the Application lives; default `argocd` (null: no namespace in its metadata). */
  namespace?: string | null;
  labels?: Record<string, string>;
  /** metadata.finalizers (Argo CD's canonical Application carries resources-finalizer.argocd.argoproj.io). */
  finalizers?: string[];
  resourceVersion?: string;
  /** The spec, as written (source, destination, syncPolicy, ignoreDifferences, ...): nothing is added to it. */
  spec: Record<string, unknown>;
  status?: Record<string, unknown>;
}

/** An argoproj.io/v1alpha1 Application object with the fields given. */
export function application(a: ApplicationFields): KubeObject {
  return {
    apiVersion: 'argoproj.io/v1alpha1',
    kind: 'Application',
    metadata: {
      name: a.name ?? 'shop',
      ...(a.namespace === null ? {} : { namespace: a.namespace ?? 'argocd' }),
      ...(a.labels ? { labels: a.labels } : {}),
      ...(a.finalizers ? { finalizers: a.finalizers } : {}),
      ...(a.resourceVersion ? { resourceVersion: a.resourceVersion } : {}),
    },
    spec: a.spec,
    ...(a.status ? { status: a.status } : {}),
  } as unknown as KubeObject;
}

/** The same Application as YAML text, for a file a command reads with `-f`. */
export function applicationYaml(a: ApplicationFields): string {
  return stringify(application(a));
}

/** The in-cluster destination (Argo CD's https://kubernetes.default.svc) in a namespace. */
export function inCluster(namespace: string): { server: string; namespace: string } {
  return { server: 'https://kubernetes.default.svc', namespace };
}
