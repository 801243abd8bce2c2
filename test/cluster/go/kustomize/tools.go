//go:build tools

// Wrapper module: builds the standalone kustomize CLI (sigs.k8s.io/kustomize/kustomize/v5) that
// renders Kustomize sources in the tests, the way Argo CD's repo-server runs it.
package tools

import _ "sigs.k8s.io/kustomize/kustomize/v5"
