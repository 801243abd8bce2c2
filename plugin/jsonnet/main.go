// The Jsonnet engine embedded in kubectl-gitops: google/go-jsonnet compiled to WebAssembly (GOOS=wasip1) by
// plugin/build.mjs and run under Node's WASI. It reads one request as JSON on standard input, evaluates the file
// the way Argo CD's repo-server does (makeJsonnetVM: TLAs, ext vars, a file importer with the source folder and
// the libs as search paths) and writes {"output": ...} or {"error": ...} as JSON on standard output.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/google/go-jsonnet"
)

type variable struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Code  bool   `json:"code"`
}

type request struct {
	File    string     `json:"file"`
	JPaths  []string   `json:"jpaths"`
	TLAs    []variable `json:"tlas"`
	ExtVars []variable `json:"extVars"`
}

type response struct {
	Output  string `json:"output,omitempty"`
	Error   string `json:"error,omitempty"`
	Version string `json:"version"`
}

func main() {
	var req request
	res := response{Version: jsonnet.Version()}
	if err := json.NewDecoder(os.Stdin).Decode(&req); err != nil {
		res.Error = fmt.Sprintf("reading the request: %v", err)
	} else if req.File == "" {
		// An empty request asks for the version only.
	} else {
		vm := jsonnet.MakeVM()
		for _, v := range req.TLAs {
			if v.Code {
				vm.TLACode(v.Name, v.Value)
			} else {
				vm.TLAVar(v.Name, v.Value)
			}
		}
		for _, v := range req.ExtVars {
			if v.Code {
				vm.ExtCode(v.Name, v.Value)
			} else {
				vm.ExtVar(v.Name, v.Value)
			}
		}
		vm.Importer(&jsonnet.FileImporter{JPaths: req.JPaths})
		out, err := vm.EvaluateFile(req.File)
		if err != nil {
			res.Error = err.Error()
		} else {
			res.Output = out
		}
	}
	if err := json.NewEncoder(os.Stdout).Encode(res); err != nil {
		os.Exit(1)
	}
}
