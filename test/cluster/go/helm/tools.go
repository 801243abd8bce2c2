//go:build tools

// Wrapper module: builds the helm CLI (helm.sh/helm/v3/cmd/helm) that renders Helm sources in the
// tests (helm template, dependency build, pull, package, repo index), the way Argo CD's repo-server
// runs it.
package tools

import _ "helm.sh/helm/v3/cmd/helm"
