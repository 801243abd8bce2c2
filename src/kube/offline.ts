// A gateway for when there is no cluster (`manifests --offline`): Kubernetes' own types from a table (builtin-types.ts),
// nothing live, and no write. A kind the table does not have (a custom resource) resolves as namespaced, as
// gitops-engine takes a kind it does not know, and is remembered so that the caller can say so.
import type { AccessResult, Discovery, GatewayStats, KubeGateway, ListResult } from './gateway.js';
import { groupOf, versionOf, type KubeObject } from '../model/object.js';
import type { ResourceType } from '../model/resource-type.js';
import { BUILTIN_TYPES } from './builtin-types.js';

const VERBS = ['get', 'list', 'create', 'update', 'patch', 'delete'];

const splitApiVersion = (apiVersion: string) => ({ group: groupOf(apiVersion), version: versionOf(apiVersion) });

export class OfflineGateway implements KubeGateway {
  readonly server = 'offline (no cluster)';
  /** The kinds resolved as namespaced because the table does not have them, as `Kind.group/version`. */
  readonly assumed = new Set<string>();
  private readonly types: ResourceType[] = BUILTIN_TYPES.map(([apiVersion, kind, resource, namespaced]) => ({
    ...splitApiVersion(apiVersion),
    kind,
    resource,
    namespaced,
    verbs: VERBS,
  }));

  async discover(): Promise<Discovery> {
    return { all: this.types, preferred: this.types };
  }

  async serverVersion(): Promise<string> {
    return '';
  }

  /** A built-in kind of the group in the asked version; any other kind as namespaced (remembered in `assumed`). */
  async resolve(apiVersion: string, kind: string): Promise<ResourceType | undefined> {
    const { group, version } = splitApiVersion(apiVersion);
    const known = this.types.find((t) => t.group === group && t.kind === kind);
    if (known) return { ...known, version };
    this.assumed.add(`${kind}.${apiVersion}`);
    return { group, version, kind, resource: `${kind.toLowerCase()}s`, namespaced: true, verbs: VERBS };
  }

  async get(): Promise<KubeObject | undefined> {
    return undefined;
  }

  async list(): Promise<ListResult> {
    return { items: [], pages: 1 };
  }

  private refuse(): never {
    throw new Error('offline: there is no cluster to write to');
  }

  async apply(): Promise<KubeObject> {
    return this.refuse();
  }
  async replace(): Promise<KubeObject> {
    return this.refuse();
  }
  async create(): Promise<KubeObject> {
    return this.refuse();
  }
  async update(): Promise<KubeObject> {
    return this.refuse();
  }
  async patch(): Promise<KubeObject> {
    return this.refuse();
  }
  async delete(): Promise<KubeObject | undefined> {
    return this.refuse();
  }
  async canI(): Promise<AccessResult> {
    return this.refuse();
  }
  async watch(): Promise<void> {
    return this.refuse();
  }

  stats(): GatewayStats {
    return { requests: 0, retries: 0 };
  }

  close(): void {}
}
