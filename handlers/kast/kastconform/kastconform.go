// Package kastconform checks Kast API results against Kast's own published
// contracts (../shared/reference/kast): the v0.7 OpenAPI components, the
// symbol/query response schema and the later catalog's result types. Tests
// of every connection that serves the Kast methods (the daemon, the LSP)
// use it, so that each is held to the same contracts.
package kastconform

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"
)

// Contracts are Kast's compiled schemas.
type Contracts struct {
	c       *jsonschema.Compiler
	results map[string]string   // method → OpenAPI component of its result
	later   map[string][]string // method → result types of the later catalog
	query   *jsonschema.Schema  // symbol/query's response
}

// Load compiles the contracts under ref, Kast's reference folder.
func Load(ref string) (*Contracts, error) {
	raw, err := os.ReadFile(filepath.Join(ref, "docs", "openapi.yaml"))
	if err != nil {
		return nil, err
	}
	var parsed any
	if err := yaml.Unmarshal(raw, &parsed); err != nil {
		return nil, err
	}
	doc := jsonKeys(parsed).(map[string]any)
	// The openapi ReadCapability enum omits WORKSPACE_SEARCH, which Kast's
	// own enum, dispatcher and examples carry (notes §3).
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	rc := schemas["ReadCapability"].(map[string]any)
	rc["enum"] = append(rc["enum"].([]any), "WORKSPACE_SEARCH")
	k := &Contracts{c: jsonschema.NewCompiler(), results: map[string]string{}}
	for _, item := range doc["paths"].(map[string]any) {
		op := item.(map[string]any)["post"].(map[string]any)
		content := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)
		r := content["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
		k.results[op["x-jsonrpc-method"].(string)] = strings.TrimPrefix(r, "#/components/schemas/")
	}
	js, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		return nil, err
	}
	if err := k.c.AddResource("file:///openapi.json", inst); err != nil {
		return nil, err
	}
	if k.later, err = laterTypes(ref); err != nil {
		return nil, err
	}
	q := jsonschema.NewCompiler()
	if k.query, err = q.Compile(filepath.Join(ref, "analysis-api", "src", "main", "resources", "contracts", "symbol-query", "symbol-query-response.schema.json")); err != nil {
		return nil, err
	}
	return k, nil
}

// jsonKeys turns YAML's maps into JSON's.
func jsonKeys(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for k, x := range v {
			v[k] = jsonKeys(x)
		}
		return v
	case map[any]any:
		out := make(map[string]any, len(v))
		for k, x := range v {
			out[fmt.Sprint(k)] = jsonKeys(x)
		}
		return out
	case []any:
		for i, x := range v {
			v[i] = jsonKeys(x)
		}
	}
	return v
}

// laterTypes reads the result types the later catalog lists per method
// (successType, failureType, responseVariants).
func laterTypes(ref string) (map[string][]string, error) {
	raw, err := os.ReadFile(filepath.Join(ref, "later-0660b755", "commands.json"))
	if err != nil {
		return nil, err
	}
	var c struct {
		Commands map[string]struct {
			SuccessType      string   `json:"successType"`
			FailureType      string   `json:"failureType"`
			ResponseVariants []string `json:"responseVariants"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, err
	}
	types := map[string][]string{}
	for name, cmd := range c.Commands {
		for _, typ := range append([]string{cmd.SuccessType, cmd.FailureType}, cmd.ResponseVariants...) {
			if typ != "" {
				types[name] = append(types[name], typ)
			}
		}
	}
	return types, nil
}

// HasResult reports whether the OpenAPI document gives method's result.
func (k *Contracts) HasResult(method string) bool { _, ok := k.results[method]; return ok }

// LaterTypes are the result types the later catalog lists for method.
func (k *Contracts) LaterTypes(method string) []string { return k.later[method] }

// Validate checks a result against the OpenAPI schema of its method.
func (k *Contracts) Validate(method string, result json.RawMessage) error {
	name, ok := k.results[method]
	if !ok {
		return fmt.Errorf("no schema for %s", method)
	}
	return k.validate(name, result)
}

// Component checks a value against one OpenAPI component.
func (k *Contracts) Component(name string, v any) error {
	raw, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return k.validate(name, raw)
}

func (k *Contracts) validate(name string, raw []byte) error {
	sch, err := k.c.Compile("file:///openapi.json#/components/schemas/" + name)
	if err != nil {
		return err
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return err
	}
	if err := sch.Validate(inst); err != nil {
		return fmt.Errorf("does not match %s: %v\n%s", name, err, raw)
	}
	return nil
}

// SymbolQuery checks a symbol/query result against its response schema.
func (k *Contracts) SymbolQuery(result json.RawMessage) error {
	env := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(result) + `}`)
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(env))
	if err != nil {
		return err
	}
	if err := k.query.Validate(inst); err != nil {
		return fmt.Errorf("symbol/query result does not match the schema: %v\n%s", err, result)
	}
	return nil
}

// Check checks any Kast result by what it is: a later-catalog result, a
// symbol/query answer, a symbol/* envelope, or a raw/system result with an
// OpenAPI schema. Results with no contract pass.
func (k *Contracts) Check(method string, result json.RawMessage) error {
	if handled, err := k.Later(method, result); handled {
		return err
	}
	switch {
	case method == "symbol/query":
		return k.SymbolQuery(result)
	case strings.HasPrefix(method, "symbol/"):
		_, err := k.Symbol(method, result)
		return err
	case k.HasResult(method):
		return k.Validate(method, result)
	}
	return nil
}

// laterOnly are the result fields only Kast's later catalog has: the v0.7
// schema (additionalProperties false) is checked on the rest.
var laterOnly = []string{"kindDomain", "snapshotToken", "returnedFileCount", "nextPageToken"}

func stripLater(v any) any {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range laterOnly {
			if k != "nextPageToken" || v["truncated"] == nil { // PageInfo keeps its own
				delete(v, k)
			}
		}
		for k, x := range v {
			v[k] = stripLater(x)
		}
	case []any:
		for i, x := range v {
			v[i] = stripLater(x)
		}
	}
	return v
}

// Later checks a result of the later catalog's form: its type is one the
// catalog lists for the method, with the envelope and, for results that
// carry them, symbols and locations valid for the v0.7 components. handled
// is false for results of v0.7's own forms.
func (k *Contracts) Later(method string, res json.RawMessage) (handled bool, err error) {
	var m map[string]any
	if json.Unmarshal(res, &m) != nil {
		return false, nil
	}
	typ, _ := m["type"].(string)
	if method == "raw/workspace-files" && m["snapshotToken"] != nil {
		b, _ := json.Marshal(stripLater(m))
		return true, k.Validate(method, b)
	}
	// v0.7's own result types (X_SUCCESS, X_FAILURE) are checked as v0.7's.
	v07 := (strings.HasSuffix(typ, "_SUCCESS") || strings.HasSuffix(typ, "_FAILURE")) && !strings.HasPrefix(typ, "SCOPE_MUTATION")
	if typ == "" || v07 || !slices.Contains(k.later[method], typ) {
		return false, nil
	}
	var errs []error
	if _, ok := m["ok"].(bool); !ok && method != "raw/workspace-files-continuation" {
		errs = append(errs, fmt.Errorf("%s: %s without ok: %s", method, typ, res))
	}
	if sub, ok := m["subject"]; ok {
		errs = append(errs, k.Component("Symbol", sub))
	}
	for _, field := range []string{"references", "implementations"} {
		list, _ := m[field].([]any)
		for _, v := range list {
			comp := map[string]string{"references": "Location", "implementations": "Symbol"}[field]
			errs = append(errs, k.Component(comp, v))
		}
	}
	return true, errors.Join(errs...)
}

// symbolParts names the OpenAPI component of each field a symbol/* result
// shares with the raw methods.
var symbolParts = map[string]string{"symbol": "Symbol", "declaration": "Symbol", "searchScope": "SearchScope", "root": "CallNode",
	"stats": "CallHierarchyStats", "applyResult": "ApplyEditsResult", "insertionPoint": "SemanticInsertionResult"}

// Symbol checks a symbol/* result's envelope and validates the parts Kast
// shares with raw/* against the OpenAPI components; it returns the result
// decoded.
func (k *Contracts) Symbol(method string, res json.RawMessage) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		return nil, err
	}
	kind := strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(method, "symbol/"), "-", "_"))
	typ, _ := m["type"].(string)
	if typ != kind+"_SUCCESS" && typ != kind+"_FAILURE" {
		return m, fmt.Errorf("%s: type %q, want %s_SUCCESS or _FAILURE: %s", method, typ, kind, res)
	}
	var errs []error
	if m["logFile"] != "/dev/null" || m["query"] == nil {
		errs = append(errs, fmt.Errorf("%s: envelope lacks logFile or query: %s", method, res))
	}
	if strings.HasSuffix(typ, "_FAILURE") {
		if m["ok"] != false || m["stage"] == nil || m["message"] == nil {
			errs = append(errs, fmt.Errorf("%s: malformed failure %s", method, res))
		}
		return m, errors.Join(errs...)
	}
	if method == "symbol/rename" || method == "symbol/write-and-validate" {
		d, _ := m["diagnostics"].(map[string]any)
		if m["ok"] != d["clean"] {
			errs = append(errs, fmt.Errorf("%s: ok must equal diagnostics.clean: %s", method, res))
		}
		list, _ := d["errors"].([]any)
		for _, e := range list {
			errs = append(errs, k.Component("Diagnostic", e))
		}
	} else if m["ok"] != true {
		errs = append(errs, fmt.Errorf("%s: success with ok != true: %s", method, res))
	}
	for field, comp := range symbolParts {
		if v, ok := m[field]; ok && !(method == "symbol/scaffold" && field == "root") {
			errs = append(errs, k.Component(comp, v))
		}
	}
	for _, field := range []string{"references", "outline", "candidates"} {
		list, _ := m[field].([]any)
		if r, ok := m[field].(map[string]any); ok && field == "references" {
			list, _ = r["locations"].([]any)
		}
		for _, v := range list {
			switch field {
			case "references":
				errs = append(errs, k.Component("Location", v))
			case "outline":
				errs = append(errs, k.Component("OutlineSymbol", v))
			case "candidates":
				errs = append(errs, k.Component("Symbol", v.(map[string]any)["symbol"]))
			}
		}
	}
	if th, ok := m["typeHierarchy"].(map[string]any); ok {
		errs = append(errs, k.Component("TypeHierarchyNode", th["root"]), k.Component("TypeHierarchyStats", th["stats"]))
	}
	return m, errors.Join(errs...)
}
