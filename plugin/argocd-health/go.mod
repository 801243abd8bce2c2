// Reads the Lua health checks Argo CD ships (github.com/argoproj/argo-cd/v3/resource_customizations, an embedded
// file system) at the version the conformance suite pins, for plugin/build.mjs to build into the executable.
// Only this package (it imports nothing but embed) is compiled: Go's pruned module graph needs no more than these two lines of go.sum.
module kubectl-gitops/plugin/argocd-health

go 1.25.5

require github.com/argoproj/argo-cd/v3 v3.2.11
