//go:build tools

// Wrapper module: builds the reference `jsonnet` CLI (github.com/google/go-jsonnet/cmd/jsonnet),
// the oracle the tests hold the embedded Jsonnet engine's output against.
package tools

import _ "github.com/google/go-jsonnet/cmd/jsonnet"
