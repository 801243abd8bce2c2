// Labels that mark the namespaces integration suites create, shared by the helpers and the teardown.

/** Present ("true") on every namespace an integration suite creates. */
export const TEST_NAMESPACE_LABEL = 'kubectl-gitops.test/namespace';

/** The id of the jest run that created the namespace (env KGITOPS_TEST_RUN). */
export const TEST_RUN_LABEL = 'kubectl-gitops.test/run';
