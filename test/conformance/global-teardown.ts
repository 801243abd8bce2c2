// Jest global teardown for the conformance suite: deletes this run's ApplicationSets, Applications and namespaces. Argo CD
// and its control plane keep running for the next run (test/argocd/down stops them; .ci/run does).
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';

const TEST_RUN_LABEL = 'kubectl-gitops.test/run'; // same as integration/support/labels.ts

function say(msg: string): void {
  process.stderr.write(`[conformance teardown] ${msg}\n`);
}

export default async function globalTeardown(): Promise<void> {
  const { KGITOPS_TEST_KUBECONFIG: kubeconfig, KGITOPS_CLUSTER_BIN: bin, KGITOPS_TEST_RUN: run } = process.env;
  if (!kubeconfig || !bin || !run) return; // the setup failed before Argo CD was up
  const kubectl = join(bin, 'kubectl');
  for (const args of [
    ['delete', 'applicationsets.argoproj.io', '-n', 'argocd', '-l', `${TEST_RUN_LABEL}=${run}`, '--ignore-not-found', '--wait=false'],
    // In every namespace: some live outside argocd (app-namespaces.test.ts).
    ['delete', 'applications.argoproj.io', '-A', '-l', `${TEST_RUN_LABEL}=${run}`, '--ignore-not-found', '--wait=false'],
    ['delete', 'namespaces', '-l', `${TEST_RUN_LABEL}=${run}`, '--wait=false', '--ignore-not-found'],
  ]) {
    const res = spawnSync(kubectl, [...args, '--kubeconfig', kubeconfig], { encoding: 'utf8' });
    if (res.status !== 0) say(`could not delete: ${res.stderr.trim()}`);
  }
}
