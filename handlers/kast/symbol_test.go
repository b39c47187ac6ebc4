package kast

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
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
				var m struct{ Type string }
				_ = json.Unmarshal(res, &m)
				if m.Type != "METRICS_SUCCESS" {
					t.Errorf("got %s", res)
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

// TestKastSymbolScenario is the Kotlin acceptance scenario by name.
func TestKastSymbolScenario(t *testing.T) {
	ref := kastReference(t)
	schemas := loadKastSchemas(t, ref)
	e := newKastEnv(t, "kotlin.txtar")
	use, second, greeter := e.path("src/main/kotlin/sample/Use.kt"), e.path("src/main/kotlin/sample/SecondaryUse.kt"), e.path("src/main/kotlin/sample/Greeter.kt")
	call := func(method string, params any) map[string]any {
		t.Helper()
		return checkSymbolResult(t, schemas, method, e.ok(method, params, nil))
	}
	str := func(v any) string { b, _ := json.Marshal(v); return string(b) }

	res := call("symbol/resolve", map[string]any{"symbol": "greet", "surroundingLines": 1, "includeSurroundingMembers": true})
	if res["type"] != "RESOLVE_SUCCESS" || res["symbol"].(map[string]any)["fqName"] != "sample.greet" || res["filePath"] != greeter {
		t.Errorf("resolve greet: %s", str(res))
	}
	if res["query"].(map[string]any)["workspaceRoot"] != e.root {
		t.Errorf("query echo lacks workspaceRoot: %s", str(res["query"]))
	}
	// "greet" also names Greeter & co: the exact match wins, the others are alternatives.
	if res["candidateCount"] == nil || !strings.Contains(str(res["alternatives"]), "Greeter") {
		t.Errorf("resolve greet: no alternatives: %s", str(res))
	}
	res = call("symbol/resolve", map[string]any{"symbol": "nothingLikeThis"})
	if res["type"] != "RESOLVE_FAILURE" || res["stage"] != "resolve" {
		t.Errorf("resolve of an unknown name: %s", str(res))
	}
	e.fails("symbol/resolve", map[string]any{"symbol": "greet", "kind": "method"}, -32400, "VALIDATION_ERROR")
	e.fails("symbol/resolve", map[string]any{"symbol": "greet", "bogus": 1}, -32400, "VALIDATION_ERROR")
	e.fails("symbol/resolve", map[string]any{}, -32400, "VALIDATION_ERROR")

	res = call("symbol/discover", map[string]any{"symbol": "Greeter", "kind": "interface", "maxResults": 2})
	cands := res["candidates"].([]any)
	first := cands[0].(map[string]any)
	if len(cands) != 2 || first["symbol"].(map[string]any)["fqName"] != "sample.Greeter" || first["nextRequest"].(map[string]any)["method"] != "symbol/resolve" {
		t.Errorf("discover Greeter: %s", str(res))
	}

	res = call("symbol/references", map[string]any{"symbol": "greet"})
	refs := res["references"].([]any)
	if len(refs) != 2 || refs[0].(map[string]any)["filePath"] != second || refs[1].(map[string]any)["filePath"] != use || res["declaration"] == nil {
		t.Errorf("references greet: %s", str(res))
	}

	res = call("symbol/callers", map[string]any{"symbol": "greet", "depth": 1})
	if st := res["stats"].(map[string]any); st["totalNodes"] != 3.0 || st["totalEdges"] != 2.0 {
		t.Errorf("callers greet: %s", str(res["stats"]))
	}

	res = call("symbol/scaffold", map[string]any{"targetFile": e.path("src/main/kotlin/sample/Types.kt"), "targetSymbol": "FriendlyGreeter"})
	if res["typeHierarchy"] == nil || res["insertionPoint"] == nil || res["references"].(map[string]any)["count"] != 1.0 {
		t.Errorf("scaffold FriendlyGreeter: %s", str(res))
	}

	res = call("symbol/rename", map[string]any{"type": "RENAME_BY_SYMBOL_REQUEST", "symbol": "greet", "newName": "welcome"})
	if res["type"] != "RENAME_SUCCESS" || res["editCount"] != 3.0 || res["ok"] != true {
		t.Errorf("rename greet: %s", str(res))
	}
	if src, _ := os.ReadFile(use); !strings.Contains(string(src), `welcome("kast")`) {
		t.Errorf("after rename, Use.kt is %q", src)
	}
	e.fails("symbol/rename", map[string]any{"type": "RENAME_BY_OFFSET_REQUEST", "symbol": "x", "newName": "y"}, -32400, "VALIDATION_ERROR")
	e.fails("symbol/rename", map[string]any{"type": "RENAME_BY_OFFSET_REQUEST", "filePath": "rel/Use.kt", "offset": 0, "newName": "y"}, -32400, "VALIDATION_ERROR")

	// Write, then a read sees it; broken code is a success with ok false.
	res = call("symbol/write-and-validate", map[string]any{"type": "INSERT_AT_OFFSET_REQUEST", "filePath": use,
		"offset": e.offset("src/main/kotlin/sample/Use.kt", "fun use", 0), "content": "fun added(): String = welcome(\"x\")\n\n"})
	if res["type"] != "WRITE_AND_VALIDATE_SUCCESS" || res["ok"] != true || res["appliedEdits"] != 1.0 {
		t.Errorf("insert: %s", str(res))
	}
	if res = call("symbol/resolve", map[string]any{"symbol": "added"}); res["type"] != "RESOLVE_SUCCESS" {
		t.Errorf("resolve after insert: %s", str(res))
	}
	created := e.path("src/main/kotlin/sample/Bad.kt")
	res = call("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": created, "content": "package sample\n\nfun bad( = 1\n"})
	if res["type"] != "WRITE_AND_VALIDATE_SUCCESS" || res["ok"] != false || res["diagnostics"].(map[string]any)["errorCount"] == 0.0 {
		t.Errorf("create broken file: %s", str(res))
	}
	res = call("symbol/write-and-validate", map[string]any{"type": "CREATE_FILE_REQUEST", "filePath": created, "content": "x"})
	if res["type"] != "WRITE_AND_VALIDATE_FAILURE" || res["error"].(map[string]any)["code"] != "CONFLICT" {
		t.Errorf("create over an existing file: %s", str(res))
	}
}

// TestKastSymbolQuery: exact matches rank first; filters are hard; an empty
// query needs an anchor.
func TestKastSymbolQuery(t *testing.T) {
	ref := kastReference(t)
	sch := symbolQuerySchema(t, ref)
	e := newKastEnv(t, "kotlin.txtar")
	query := func(params map[string]any) map[string]any {
		t.Helper()
		res := e.ok("symbol/query", params, nil)
		validateSymbolQuery(t, sch, res)
		var m map[string]any
		_ = json.Unmarshal(res, &m)
		return m
	}
	fq := func(m map[string]any, i int) string {
		return m["results"].([]any)[i].(map[string]any)["declaration"].(map[string]any)["fqName"].(string)
	}
	m := query(map[string]any{"query": "greet", "includeNextRequests": true})
	if fq(m, 0) != "sample.greet" || len(m["results"].([]any)) < 4 {
		t.Errorf("query greet: %v", m)
	}
	m = query(map[string]any{"query": "greeter", "filters": map[string]any{"kinds": []string{"INTERFACE"}}, "limit": 5})
	if len(m["results"].([]any)) != 1 || fq(m, 0) != "sample.Greeter" || len(m["hardFilters"].([]any)) != 1 {
		t.Errorf("query greeter, interfaces only: %v", m)
	}
	m = query(map[string]any{"query": "", "anchor": map[string]any{"fqName": "sample.greet"}})
	if len(m["results"].([]any)) != 2 {
		t.Errorf("query around sample.greet: %v", m)
	}
	if m = query(map[string]any{"query": ""}); m["type"] != "SYMBOL_QUERY_FAILURE" || m["reason"] != "QUERY_TOO_BROAD" {
		t.Errorf("empty query: %v", m)
	}
	if m = query(map[string]any{"query": "", "anchor": map[string]any{"symbol": "nothing"}}); m["reason"] != "ANCHOR_NOT_FOUND" {
		t.Errorf("unknown anchor: %v", m)
	}
	e.fails("symbol/query", map[string]any{"query": "x", "modes": []string{"fuzzy"}}, -32400, "VALIDATION_ERROR")
}

func TestKastSymbolAliases(t *testing.T) {
	reg := server.NewRegistry()
	New(host.New(host.Options{}), Options{}).Register(reg)
	for _, name := range []string{"symbol/write-and-validate", "kast/symbolWriteAndValidate", "kast/symbolQuery", "database/metrics", "kast/databaseMetrics"} {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
}
