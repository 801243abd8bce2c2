// A gateway whose writes are sent as another user (Argo CD's sync impersonation: the AppProject's
// destinationServiceAccounts): applies, replaces, creates, updates, patches and deletes carry the Impersonate-User
// header, and so do access checks (the sync's permission preflight asks for that user's rights); reads are the caller's
// own, as Argo CD's controller reads through its own cluster cache and writes as the ServiceAccount.
import type { KubeGateway } from './gateway.js';

/** Where each write method takes its options (the last argument; delete's may be absent). */
const OPTIONS_AT: Readonly<Record<string, number>> = { apply: 2, replace: 2, create: 2, update: 2, patch: 5, delete: 3, canI: 0 };

export function writesAs(gw: KubeGateway, user: string): KubeGateway {
  return new Proxy(gw, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver) as unknown;
      if (typeof value !== 'function') return value;
      const at = typeof prop === 'string' ? OPTIONS_AT[prop] : undefined;
      if (at === undefined) return (value as (...a: unknown[]) => unknown).bind(target);
      return (...args: unknown[]) => {
        const copy = [...args];
        copy[at] = { ...((copy[at] as object | undefined) ?? {}), impersonate: user };
        return (value as (...a: unknown[]) => unknown).apply(target, copy);
      };
    },
  });
}
