// The differences between Argo CD's verdict and kubectl-gitops's that are on purpose, each with its whole row of the
// table "Where Argo CD itself answers differently, on purpose" (docs/engineering/conformance.md). A scenario step
// expects exactly the lines listed for it: a new difference fails the suite, and so does one that went away. The table
// holds exactly these rows, cell for cell (test/unit/docs/conformance-table.test.ts, in `npm test`).

export interface KnownDifference {
  /** The row of that table (docs/engineering/conformance.md), e.g. `C1`. */
  id: string;
  /** `<test file>/<step>`, as the suite names its comparisons. */
  step: string;
  /** The lines `differences()` prints for it (namespace written `<ns>`, app names `<app>`). */
  lines: string[];
  /** The table's other columns, as written there (Markdown): where, what Argo CD does, what kubectl-gitops does, why. */
  row: { where: string; argoCd: string; kubectlGitops: string; why: string };
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    // Objects applied server-side by kubectl-gitops carry no last-applied-configuration: Argo CD's diff of an
    // app without ServerSideApply=true cannot see a field Git dropped; kubectl-gitops sees it in managedFields
    // (its own sync would remove it).
    id: 'C1',
    step: 'basic/after-field-removed',
    lines: ['app sync: Argo CD Synced, kubectl-gitops OutOfSync', 'apps/Deployment/<ns>/web status: Argo CD "Synced", kubectl-gitops "OutOfSync"'],
    row: {
      where: 'a field removed from Git from an object that **kubectl-gitops** applied, in an app without `ServerSideApply=true` (`basic/after-field-removed`)',
      argoCd:
        'Synced: its diff of a client-side app finds removed fields through the `last-applied-configuration` annotation, which a server-side apply never writes',
      kubectlGitops: 'OutOfSync on the object (the `removed` verdict, from managedFields)',
      why: 'kubectl-gitops applies server-side (unless the app says `ServerSideApply=false`), and its next sync does remove the field: Synced would hide a change the sync makes. When Argo CD applied the object itself (server-side, in `basic.test.ts`), both say OutOfSync',
    },
  },
  {
    // The table in docs/concepts/differences.md (once the README's first): an empty render is refused for every sync unless allowEmpty is set; Argo CD
    // guards only automated syncs.
    id: 'C2',
    step: 'empty/sync',
    lines: ['sync --prune of an empty render: Argo CD Succeeded, deleted ConfigMap/only, kubectl-gitops refused (exit 4), deleted nothing'],
    row: {
      where: '`sync --prune` of a render that is successfully empty (the last manifest dropped from Git; `empty/sync`)',
      argoCd: 'the manual sync Succeeds and deletes every object of the app',
      kubectlGitops: '`REFUSED=`, exit 4, nothing deleted (the verdict before it is the same: every live object requires pruning)',
      why: 'the first table of [the differences on purpose](../concepts/differences.md): a render that is suddenly empty is more often a mistake than a wish; `allowEmpty: true` allows it',
    },
  },
  {
    // kubectl-gitops applies server-side unless the app says ServerSideApply=false; Argo CD's default is a
    // client-side apply (an Update).
    id: 'C3',
    step: 'basic/managers-client-side',
    lines: [
      'configmap managers: Argo CD client-side argocd-controller Update, kubectl-gitops argocd-controller Apply',
      'deployment managers: Argo CD client-side argocd-controller Update, kubectl-gitops argocd-controller Apply',
      'service managers: Argo CD client-side argocd-controller Update, kubectl-gitops argocd-controller Apply',
    ],
    row: {
      where: "the fields a sync owns, after Argo CD's default sync (no `ServerSideApply=true`; `basic/managers-client-side`)",
      argoCd: 'a client-side apply: `argocd-controller` owns them by an `Update`, and `last-applied-configuration` is written',
      kubectlGitops:
        'a server-side apply unless the app says `ServerSideApply=false`: `argocd-controller` owns them by an `Apply` (with `ServerSideApply=true` both are identical, above)',
      why: 'server-side apply is what makes conflicts, ownership and removed fields visible field by field; the verdicts agree either way',
    },
  },
  {
    // The record (record.test.ts): every other field of the status agrees with Argo CD's.
    id: 'C4',
    step: 'record/after-sync',
    lines: ['controllerNamespace: Argo CD "argocd", kubectl-gitops null'],
    row: {
      where: "the Application's `status.controllerNamespace` after a sync (`record/after-sync`, both apps of `record.test.ts`)",
      argoCd: 'the namespace its application controller runs in (`argocd`)',
      kubectlGitops: 'none: the field is not written',
      why: 'no controller runs; the field tells which controller keeps the app (Applications in several namespaces), and a controller that takes the app over writes its own at its first reconciliation (`handover.test.ts`)',
    },
  },
];

/** The lines expected at one step: those of every known difference listed for it. */
export function expectedDifferences(step: string): string[] {
  return KNOWN_DIFFERENCES.filter((d) => d.step === step)
    .flatMap((d) => d.lines)
    .sort();
}
