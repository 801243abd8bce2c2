//go:build tools

// Wrapper module: builds Argo CD's `argocd` command (github.com/argoproj/argo-cd/v3/cmd), which runs
// as argocd-application-controller or argocd-repo-server by the name it is started under.
package tools

import _ "github.com/argoproj/argo-cd/v3/cmd"
