//go:build tools

// Wrapper module: builds the CNCF distribution registry (github.com/distribution/distribution/v3/cmd/registry), an
// OCI registry the tests serve Helm charts from on loopback (helm push oci://...), as Argo CD pulls charts from one.
package tools

import _ "github.com/distribution/distribution/v3/cmd/registry"
