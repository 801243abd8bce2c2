// The Go template engine embedded in kubectl-gitops for `appset generate`: Go's text/template with the function set
// Argo CD's ApplicationSet controller offers (applicationset/utils/utils.go: sprig's GenericFuncMap without env,
// expandenv and getHostByName, plus normalize, slugify, toYaml, fromYaml and fromYamlArray), compiled to WebAssembly
// (GOOS=wasip1) by plugin/build.mjs and run under Node's WASI. It reads one request as JSON on standard input: a list
// of parameter sets and a list of items, each a template string with the index of its parameter set and the
// template options (e.g. missingkey=error); it writes one result per item, {"output": ...} or {"error": ...}.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"regexp"
	"strings"
	"text/template"

	"github.com/Masterminds/sprig/v3"
	"github.com/gosimple/slug"
	"sigs.k8s.io/yaml"
)

type item struct {
	Template string   `json:"template"`
	Params   int      `json:"params"`
	Options  []string `json:"options"`
}

type request struct {
	Params []map[string]any `json:"params"`
	Items  []item           `json:"items"`
}

type result struct {
	Output *string `json:"output,omitempty"`
	Error  string  `json:"error,omitempty"`
}

type response struct {
	Results []result `json:"results"`
	Error   string   `json:"error,omitempty"`
}

var funcs = sprig.GenericFuncMap()

func init() {
	delete(funcs, "env")
	delete(funcs, "expandenv")
	delete(funcs, "getHostByName")
	funcs["normalize"] = sanitizeName
	funcs["slugify"] = slugifyName
	funcs["toYaml"] = toYAML
	funcs["fromYaml"] = fromYAML
	funcs["fromYamlArray"] = fromYAMLArray
}

var invalidDNSNameChars = regexp.MustCompile("[^-a-z0-9.]")

// sanitizeName: lower case, anything but [-a-z0-9.] becomes '-', at most 253 bytes, '-' and '.' trimmed at both ends.
func sanitizeName(name string) string {
	name = invalidDNSNameChars.ReplaceAllString(strings.ToLower(name), "-")
	if len(name) > 253 {
		name = name[:253]
	}
	return strings.Trim(name, "-.")
}

// slugifyName([maxSize int], [smartTruncate bool], name string): the name sanitized, then made a slug.
func slugifyName(args ...any) (string, error) {
	maxSize, smart, name := 50, true, ""
	for i, a := range args {
		var ok bool
		switch i {
		case len(args) - 1:
			name, ok = a.(string)
		case 0:
			maxSize, ok = a.(int)
		case 1:
			smart, ok = a.(bool)
		}
		if !ok {
			return "", fmt.Errorf("slugify: bad argument %d (%v)", i+1, a)
		}
	}
	slug.EnableSmartTruncate = smart
	slug.MaxLength = maxSize
	return slug.Make(sanitizeName(name)), nil
}

func toYAML(v any) (string, error) {
	data, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	return strings.TrimSuffix(string(data), "\n"), nil
}

func fromYAML(s string) (map[string]any, error) {
	m := map[string]any{}
	if err := yaml.Unmarshal([]byte(s), &m); err != nil {
		return nil, err
	}
	return m, nil
}

func fromYAMLArray(s string) ([]any, error) {
	a := []any{}
	if err := yaml.Unmarshal([]byte(s), &a); err != nil {
		return nil, err
	}
	return a, nil
}

// render parses and executes one template as Argo CD's Render.Replace does when goTemplate is on.
func render(text string, params map[string]any, options []string) (string, error) {
	t, err := template.New("").Funcs(funcs).Parse(text)
	if err != nil {
		return "", fmt.Errorf("failed to parse template %s: %w", text, err)
	}
	for _, o := range options {
		t = t.Option(o)
	}
	var out bytes.Buffer
	if err := t.Execute(&out, params); err != nil {
		return "", fmt.Errorf("failed to execute go template %s: %w", text, err)
	}
	return out.String(), nil
}

func safeRender(text string, params map[string]any, options []string) (out string, err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("failed to execute go template %s: %v", text, r)
		}
	}()
	return render(text, params, options)
}

func main() {
	var req request
	var res response
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		res.Error = fmt.Sprintf("reading the request: %v", err)
	} else {
		res.Results = make([]result, len(req.Items))
		for i, it := range req.Items {
			var params map[string]any
			if it.Params >= 0 && it.Params < len(req.Params) {
				params = req.Params[it.Params]
			}
			out, err := safeRender(it.Template, params, it.Options)
			if err != nil {
				res.Results[i].Error = err.Error()
			} else {
				res.Results[i].Output = &out
			}
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}
