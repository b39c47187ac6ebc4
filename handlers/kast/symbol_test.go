package kast

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// component validates a value against one openapi component schema.
func (s *kastSchemas) component(t *testing.T, name string, v any) {
	t.Helper()
	sch, err := s.c.Compile("file:///openapi.json#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(v)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not match %s: %v\n%s", name, name, err, raw)
	}
}

// symbolParts names the openapi component of each field a symbol/* result
// shares with the raw methods.
var symbolParts = map[string]string{"symbol": "Symbol", "declaration": "Symbol", "searchScope": "SearchScope", "root": "CallNode",
	"stats": "CallHierarchyStats", "applyResult": "ApplyEditsResult", "insertionPoint": "SemanticInsertionResult"}

// checkSymbolResult checks a symbol/* result's envelope and validates the
// parts Kast shares with raw/* against the openapi components.
func checkSymbolResult(t *testing.T, s *kastSchemas, method string, res json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(res, &m); err != nil {
		t.Fatal(err)
	}
	kind := strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(method, "symbol/"), "-", "_"))
	typ, _ := m["type"].(string)
	if typ != kind+"_SUCCESS" && typ != kind+"_FAILURE" {
		t.Fatalf("%s: type %q, want %s_SUCCESS or _FAILURE: %s", method, typ, kind, res)
	}
	if m["logFile"] != "/dev/null" || m["query"] == nil {
		t.Errorf("%s: envelope lacks logFile or query: %s", method, res)
	}
	if strings.HasSuffix(typ, "_FAILURE") {
		if m["ok"] != false || m["stage"] == nil || m["message"] == nil {
			t.Errorf("%s: malformed failure %s", method, res)
		}
		return m
	}
	if method == "symbol/rename" || method == "symbol/write-and-validate" {
		d := m["diagnostics"].(map[string]any)
		if m["ok"] != d["clean"] {
			t.Errorf("%s: ok must equal diagnostics.clean: %s", method, res)
		}
		for _, e := range d["errors"].([]any) {
			s.component(t, "Diagnostic", e)
		}
	} else if m["ok"] != true {
		t.Errorf("%s: success with ok != true: %s", method, res)
	}
	for field, comp := range symbolParts {
		if v, ok := m[field]; ok && !(method == "symbol/scaffold" && field == "root") {
			s.component(t, comp, v)
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
				s.component(t, "Location", v)
			case "outline":
				s.component(t, "OutlineSymbol", v)
			case "candidates":
				s.component(t, "Symbol", v.(map[string]any)["symbol"])
			}
		}
	}
	if th, ok := m["typeHierarchy"].(map[string]any); ok {
		s.component(t, "TypeHierarchyNode", th["root"])
		s.component(t, "TypeHierarchyStats", th["stats"])
	}
	return m
}

// symbolQuerySchema compiles Kast's symbol/query response schema.
func symbolQuerySchema(t *testing.T, ref string) *jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	sch, err := c.Compile(filepath.Join(ref, "analysis-api", "src", "main", "resources", "contracts", "symbol-query", "symbol-query-response.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	return sch
}

func validateSymbolQuery(t *testing.T, sch *jsonschema.Schema, res json.RawMessage) {
	t.Helper()
	env := []byte(`{"jsonrpc":"2.0","id":1,"result":` + string(res) + `}`)
	inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(env))
	if err := sch.Validate(inst); err != nil {
		t.Errorf("symbol/query result does not match the schema: %v\n%s", err, res)
	}
}

// TestKastSymbolRequestExamples sends every symbol/* and database/*
// request example of Kast's skill, pointed at the fixture, after checking it
// against its own request schema; results are checked by shape and schema.
// Mutating examples get a fresh workspace each.
func TestKastSymbolRequestExamples(t *testing.T) {
	ref := kastReference(t)
	schemas := loadKastSchemas(t, ref)
	queryRes := symbolQuerySchema(t, ref)
	base := filepath.Join(ref, "cli-rs", "resources", "kast-skill", "references", "requests")
	var examples []string
	for _, pattern := range []string{"symbol/*/*.json", "symbol/*/*/*.json", "database/*/*.json"} {
		m, _ := filepath.Glob(filepath.Join(base, filepath.FromSlash(pattern)))
		examples = append(examples, m...)
	}
	// Examples without content to write: refused rather than writing nothing
	// and reporting success.
	invalid := map[string]bool{
		"symbol/write-and-validate/CREATE_FILE_REQUEST/minimal.json":      true,
		"symbol/write-and-validate/INSERT_AT_OFFSET_REQUEST/minimal.json": true,
		"symbol/write-and-validate/REPLACE_RANGE_REQUEST/minimal.json":    true,
	}
	shared := newKastEnv(t, "kotlin.txtar")
	n := 0
	for _, path := range examples {
		if strings.HasSuffix(path, "request.schema.json") {
			continue
		}
		n++
		rel, _ := filepath.Rel(base, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			schemaPath := filepath.Join(filepath.Dir(path), "request.schema.json")
			if _, err := os.Stat(schemaPath); err != nil {
				schemaPath = filepath.Join(filepath.Dir(filepath.Dir(path)), "request.schema.json")
			}
			reqSchema, err := jsonschema.NewCompiler().Compile(schemaPath)
			if err != nil {
				t.Fatal(err)
			}
			inst, _ := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
			if err := reqSchema.Validate(inst); err != nil {
				t.Fatalf("the example breaks its own request schema: %v", err)
			}
			e := shared
			if strings.Contains(rel, "rename/") || strings.Contains(rel, "write-and-validate/") {
				e = newKastEnv(t, "kotlin.txtar")
			}
			method, res, ok := e.sendExample(t, raw, invalid[rel])
			if !ok {
				return
			}
			switch method {
			case "symbol/query":
				validateSymbolQuery(t, queryRes, res)
			case "database/metrics":
				// maximal.json asks for graph, which Kast's RPC path
				// reports unsupported (notes §5).
				var m struct{ Type, Message string }
				_ = json.Unmarshal(res, &m)
				want := "METRICS_SUCCESS"
				if strings.Contains(string(raw), `"graph"`) {
					want = "METRICS_FAILURE"
				}
				if m.Type != want || want == "METRICS_FAILURE" && !strings.HasPrefix(m.Message, "METRICS_UNSUPPORTED") {
					t.Errorf("got %s, want %s", res, want)
				}
			default:
				checkSymbolResult(t, schemas, method, res)
			}
		})
	}
	if n < 20 {
		t.Errorf("found %d examples, want the 22 symbol/* and database/* ones", n)
	}
}
