// The differences between Argo CD's verdict and kubectl-gitops's that are on purpose, each with the id of its
// row in the table "Where Argo CD itself answers differently, on purpose" (docs/engineering/conformance.md). A scenario step
// expects exactly the lines listed for it: a new difference fails the suite, and so does one that went away.

export interface KnownDifference {
  /** The row of that table (docs/engineering/conformance.md), e.g. `C1`. */
  id: string;
  /** `<test file>/<step>`, as the suite names its comparisons. */
  step: string;
  /** The lines `differences()` prints for it (namespace written `<ns>`, app names `<app>`). */
  lines: string[];
}

export const KNOWN_DIFFERENCES: KnownDifference[] = [
  {
    // Objects applied server-side by kubectl-gitops carry no last-applied-configuration: Argo CD's diff of an
    // app without ServerSideApply=true cannot see a field Git dropped; kubectl-gitops sees it in managedFields
    // (its own sync would remove it).
    id: 'C1',
    step: 'basic/after-field-removed',
    lines: ['app sync: Argo CD Synced, kubectl-gitops OutOfSync', 'apps/Deployment/<ns>/web status: Argo CD "Synced", kubectl-gitops "OutOfSync"'],
  },
  {
    // The table in docs/concepts/differences.md (once the README's first): an empty render is refused for every sync unless allowEmpty is set; Argo CD
    // guards only automated syncs.
    id: 'C2',
    step: 'empty/sync',
    lines: ['sync --prune of an empty render: Argo CD Succeeded, deleted ConfigMap/only, kubectl-gitops refused (exit 4), deleted nothing'],
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
  },
];

/** The lines expected at one step: those of every known difference listed for it. */
export function expectedDifferences(step: string): string[] {
  return KNOWN_DIFFERENCES.filter((d) => d.step === step)
    .flatMap((d) => d.lines)
    .sort();
}
