// The Lua health checks Argo CD ships, read from its own Go package at build time: every
// resource_customizations/<group>/<kind>/health.lua (and the core group's <kind>/health.lua, and the `_`
// wildcard folders) written to standard output as one JSON object, folder path -> script, sorted. plugin/build.mjs
// runs it once per version and builds the result into the executable; nothing of Argo CD's is kept in the repository.
package main

import (
	"encoding/json"
	"io/fs"
	"os"
	"path"

	"github.com/argoproj/argo-cd/v3/resource_customizations"
)

func main() {
	checks := map[string]string{}
	err := fs.WalkDir(resource_customizations.Embedded, ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() || path.Base(p) != "health.lua" {
			return nil
		}
		b, err := fs.ReadFile(resource_customizations.Embedded, p)
		if err != nil {
			return err
		}
		checks[path.Dir(p)] = string(b)
		return nil
	})
	if err != nil {
		os.Stderr.WriteString("reading resource_customizations: " + err.Error() + "\n")
		os.Exit(1)
	}
	// encoding/json writes a map's keys sorted: the same checks give the same bytes.
	enc := json.NewEncoder(os.Stdout)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(checks); err != nil {
		os.Stderr.WriteString("writing: " + err.Error() + "\n")
		os.Exit(1)
	}
}
