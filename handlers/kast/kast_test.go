package kast

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
)

// kastReference is Kast's reference material, next to the repository.
func kastReference(t *testing.T) string {
	t.Helper()
	dir, err := filepath.Abs(filepath.Join("..", "..", "..", "shared", "reference", "kast"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "docs", "openapi.yaml")); err != nil {
		t.Skipf("Kast reference material not found at %s (it lives outside the repository): %v", dir, err)
	}
	return dir
}

// sendExample sends a request example of Kast's skill, pointed at the
// fixture. An example invalid for Kast's own schema must be refused with
// VALIDATION_ERROR (ok is false then); any other must succeed.
func (e *kastEnv) sendExample(t *testing.T, raw []byte, invalid bool) (method string, res json.RawMessage, ok bool) {
	t.Helper()
	raw = bytes.ReplaceAll(raw, []byte("/absolute/path/to/workspace"), []byte(e.root))
	var req struct {
		Method string          `json:"method"`
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(raw, &req); err != nil {
		t.Fatal(err)
	}
	res, rpcErr := e.call(req.Method, req.Params)
	if invalid {
		if rpcErr == nil || rpcErr.Code != -32400 || rpcErr.DataCode() != "VALIDATION_ERROR" {
			t.Fatalf("got %s %v, want -32400 VALIDATION_ERROR", res, rpcErr)
		}
		return req.Method, res, false
	}
	if rpcErr != nil {
		t.Fatalf("%v %s", rpcErr, rpcErr.Data)
	}
	return req.Method, res, true
}

func (e *kastEnv) pos(rel, needle string, n int) map[string]any {
	return map[string]any{"filePath": e.path(rel), "offset": e.offset(rel, needle, n)}
}

// kastSchemas compiles docs/openapi.yaml's component schemas and maps each
// method to the schema of its result.
type kastSchemas struct {
	c       *jsonschema.Compiler
	results map[string]string // method → component name
}

func loadKastSchemas(t *testing.T, ref string) *kastSchemas {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ref, "docs", "openapi.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var parsed any
	if err := yaml.Unmarshal(raw, &parsed); err != nil {
		t.Fatal(err)
	}
	doc := jsonKeys(parsed).(map[string]any)
	// The openapi ReadCapability enum omits WORKSPACE_SEARCH, which Kast's
	// own enum, dispatcher and examples carry (notes §3).
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	rc := schemas["ReadCapability"].(map[string]any)
	rc["enum"] = append(rc["enum"].([]any), "WORKSPACE_SEARCH")
	s := &kastSchemas{c: jsonschema.NewCompiler(), results: map[string]string{}}
	for _, item := range doc["paths"].(map[string]any) {
		op := item.(map[string]any)["post"].(map[string]any)
		content := op["responses"].(map[string]any)["200"].(map[string]any)["content"].(map[string]any)
		ref := content["application/json"].(map[string]any)["schema"].(map[string]any)["$ref"].(string)
		s.results[op["x-jsonrpc-method"].(string)] = strings.TrimPrefix(ref, "#/components/schemas/")
	}
	js, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.c.AddResource("file:///openapi.json", inst); err != nil {
		t.Fatal(err)
	}
	return s
}

// validate checks a result against the schema of its method.
func (s *kastSchemas) validate(t *testing.T, method string, result json.RawMessage) {
	t.Helper()
	name, ok := s.results[method]
	if !ok {
		t.Fatalf("no schema for %s", method)
	}
	sch, err := s.c.Compile("file:///openapi.json#/components/schemas/" + name)
	if err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(result))
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s result does not match %s: %v\n%s", method, name, err, result)
	}
}

// TestKastRequestExamples sends every raw/* and system request example of
// Kast's skill, pointed at the fixture, and validates each result against
// the OpenAPI schema; an example that is invalid for Kast's own schema must
// be refused with VALIDATION_ERROR.
func TestKastRequestExamples(t *testing.T) {
	ref := kastReference(t)
	schemas := loadKastSchemas(t, ref)
	e := newKastEnv(t, "kotlin.txtar")
	dir := filepath.Join(ref, "cli-rs", "resources", "kast-skill", "references", "requests", "raw")
	examples, err := filepath.Glob(filepath.Join(dir, "*", "*.json"))
	if err != nil || len(examples) == 0 {
		t.Fatalf("no examples under %s: %v", dir, err)
	}
	// Examples that break the request schema (unknown or missing keys, enum
	// values that do not exist): Kast rejects them, and so must we.
	invalid := map[string]bool{
		"apply-edits/minimal.json": true, "apply-edits/maximal.json": true, // "content"/"sha256" keys
		"completions/maximal.json": true, // kindFilter "example-kindFilter"
	}
	for _, path := range examples {
		if strings.HasSuffix(path, "request.schema.json") {
			continue
		}
		rel, _ := filepath.Rel(dir, path)
		rel = filepath.ToSlash(rel)
		t.Run(rel, func(t *testing.T) {
			raw, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if method, res, ok := e.sendExample(t, raw, invalid[rel]); ok {
				schemas.validate(t, method, res)
			}
		})
	}
	for _, method := range []string{"health", "runtime/status", "capabilities"} {
		schemas.validate(t, method, e.ok(method, map[string]any{}, nil))
	}
}

// kastScenario is the acceptance scenario for one language: greet is
// declared in one file and called from two others; Greeter, FriendlyGreeter
// and LoudGreeter form a three-level type hierarchy; one file is broken.
type kastScenario struct {
	archive                  string
	decl, use, second, types string // the files, relative to the fixture
	broken                   string
	name, fqName, newName    string // greet as spelled in the language
	refs                     int    // references of greet, imports included
	renameEdits              int    // the declaration, the calls and any imports
	newFile, newFileSource   string // a further caller, made by CREATE_FILE
	newFileRefs              int    // references the new file adds
}

var kastScenarios = []kastScenario{
	{
		archive: "kotlin.txtar", decl: "src/main/kotlin/sample/Greeter.kt", use: "src/main/kotlin/sample/Use.kt",
		second: "src/main/kotlin/sample/SecondaryUse.kt", types: "src/main/kotlin/sample/Types.kt",
		broken: "src/main/kotlin/sample/Broken.kt", name: "greet", fqName: "sample.greet", newName: "welcome",
		refs: 2, renameEdits: 3,
		newFile: "src/main/kotlin/sample/New.kt", newFileSource: "package sample\n\nfun fresh() = welcome(\"new\")\n", newFileRefs: 1,
	},
	{
		archive: "go.txtar", decl: "sample/greeter.go", use: "sample/use.go", second: "sample/secondary_use.go",
		types: "sample/types.go", broken: "sample/broken.go", name: "Greet", fqName: "sample.Greet", newName: "Welcome",
		refs: 2, renameEdits: 3,
		newFile: "sample/fresh.go", newFileSource: "package sample\n\nfunc Fresh() string { return Welcome(\"new\") }\n", newFileRefs: 1,
	},
	{
		archive: "python.txtar", decl: "sample/greeter.py", use: "sample/use.py", second: "sample/secondary_use.py",
		types: "sample/types.py", broken: "sample/broken.py", name: "greet", fqName: "sample.greeter.greet", newName: "welcome",
		refs: 4, renameEdits: 5,
		newFile: "sample/fresh.py", newFileSource: "from sample.greeter import welcome\n\n\ndef fresh():\n    return welcome(\"new\")\n", newFileRefs: 2,
	},
	{
		archive: "typescript.txtar", decl: "src/sample/greeter.ts", use: "src/sample/use.ts", second: "src/sample/secondaryUse.ts",
		types: "src/sample/types.ts", broken: "src/sample/broken.ts", name: "greet", fqName: "src/sample/greeter.greet", newName: "welcome",
		refs: 4, renameEdits: 5,
		newFile: "src/sample/fresh.ts", newFileSource: "import { welcome } from \"./greeter\";\n\nexport const fresh = () => welcome(\"new\");\n", newFileRefs: 2,
	},
}

// TestKastScenario is the acceptance scenario on the Kotlin, Go,
// Python and TypeScript fixtures, every result validated against the OpenAPI
// schema.
func TestKastScenario(t *testing.T) {
	ref := kastReference(t)
	schemas := loadKastSchemas(t, ref)
	for _, sc := range kastScenarios {
		t.Run(strings.TrimSuffix(sc.archive, ".txtar"), func(t *testing.T) {
			runKastScenario(t, schemas, sc)
		})
	}
}

func runKastScenario(t *testing.T, schemas *kastSchemas, sc kastScenario) {
	e := newKastEnv(t, sc.archive)
	check := func(method string, params any, out any) {
		t.Helper()
		schemas.validate(t, method, e.ok(method, params, out))
	}
	// The call in use is the last occurrence of the name there (an import may precede it).
	call := func(rel, name string) map[string]any {
		src, err := os.ReadFile(e.path(rel))
		if err != nil {
			t.Fatal(err)
		}
		return map[string]any{"filePath": e.path(rel), "offset": bytes.LastIndex(src, []byte(name+"("))}
	}

	var sym struct {
		Symbol struct{ FqName, Kind string } `json:"symbol"`
	}
	check("raw/resolve", map[string]any{"position": call(sc.use, sc.name)}, &sym)
	if sym.Symbol.FqName != sc.fqName || sym.Symbol.Kind != "FUNCTION" {
		t.Errorf("resolve: got %+v, want %s FUNCTION", sym.Symbol, sc.fqName)
	}

	type reference struct {
		FilePath    string `json:"filePath"`
		StartOffset int    `json:"startOffset"`
	}
	var refs struct {
		References []reference `json:"references"`
	}
	check("raw/references", map[string]any{"position": call(sc.use, sc.name), "includeDeclaration": true}, &refs)
	if len(refs.References) != sc.refs {
		t.Errorf("references: got %+v, want %d", refs.References, sc.refs)
	}
	files := map[string]bool{}
	for i, r := range refs.References {
		files[r.FilePath] = true
		if i > 0 {
			prev := refs.References[i-1]
			if prev.FilePath > r.FilePath || prev.FilePath == r.FilePath && prev.StartOffset >= r.StartOffset {
				t.Errorf("references not ordered by file then offset: %+v", refs.References)
			}
		}
	}
	if !files[e.path(sc.use)] || !files[e.path(sc.second)] {
		t.Errorf("references: got %+v, want both callers", refs.References)
	}

	var calls struct {
		Stats struct{ TotalNodes, TotalEdges int } `json:"stats"`
	}
	check("raw/call-hierarchy", map[string]any{"position": e.pos(sc.decl, sc.name+"(", 0), "direction": "INCOMING", "depth": 1}, &calls)
	if calls.Stats.TotalNodes != 3 || calls.Stats.TotalEdges != 2 {
		t.Errorf("call hierarchy: got %+v, want 3 nodes and 2 edges", calls.Stats)
	}

	var types struct {
		Stats struct{ TotalNodes int } `json:"stats"`
	}
	check("raw/type-hierarchy", map[string]any{"position": e.pos(sc.types, "FriendlyGreeter", 0), "direction": "BOTH", "depth": 1}, &types)
	if types.Stats.TotalNodes != 3 {
		t.Errorf("type hierarchy: got %d nodes, want 3", types.Stats.TotalNodes)
	}

	fq := fmt.Sprintf("%q:%q", "fqName", sc.fqName)
	if outline := string(e.ok("raw/file-outline", map[string]any{"filePath": e.path(sc.decl)}, nil)); !strings.Contains(outline, fq) {
		t.Errorf("outline lacks %s: %s", sc.fqName, outline)
	}
	if symbols := string(e.ok("raw/workspace-symbol", map[string]any{"pattern": sc.name}, nil)); !strings.Contains(symbols, fq) {
		t.Errorf("workspace symbols lack %s: %s", sc.fqName, symbols)
	}

	var plan struct {
		Edits []struct {
			FilePath    string `json:"filePath"`
			StartOffset int    `json:"startOffset"`
			EndOffset   int    `json:"endOffset"`
			NewText     string `json:"newText"`
		} `json:"edits"`
		FileHashes    []map[string]string `json:"fileHashes"`
		AffectedFiles []string            `json:"affectedFiles"`
	}
	res := e.ok("raw/rename", map[string]any{"position": call(sc.use, sc.name), "newName": sc.newName}, &plan)
	schemas.validate(t, "raw/rename", res)
	if len(plan.Edits) != sc.renameEdits || len(plan.FileHashes) != 3 {
		t.Fatalf("rename: got %s, want %d edits over 3 files", res, sc.renameEdits)
	}
	for _, h := range plan.FileHashes {
		if h["hash"] != hashOf(t, h["filePath"]) {
			t.Errorf("rename: hash of %s is %s, want the file's SHA-256", h["filePath"], h["hash"])
		}
	}

	// Apply the plan as given, then read: the rename is visible at once.
	var applyParams map[string]any
	_ = json.Unmarshal(res, &applyParams)
	delete(applyParams, "affectedFiles")
	delete(applyParams, "searchScope")
	delete(applyParams, "schemaVersion")
	check("raw/apply-edits", applyParams, nil)
	src, _ := os.ReadFile(e.path(sc.use))
	if !strings.Contains(string(src), sc.newName+`("kast")`) {
		t.Errorf("after apply: %s is %q", sc.use, src)
	}
	// No code still names the old function (comments are prose).
	stale := regexp.MustCompile(`(?m)^[^/#]*\b` + sc.name + `\b`)
	for _, rel := range []string{sc.decl, sc.second} {
		if src, _ := os.ReadFile(e.path(rel)); stale.Match(src) {
			t.Errorf("after apply: %s still names %s: %q", rel, sc.name, src)
		}
	}
	check("raw/resolve", map[string]any{"position": call(sc.use, sc.newName)}, &sym)
	wantFq := strings.TrimSuffix(sc.fqName, sc.name) + sc.newName
	if sym.Symbol.FqName != wantFq {
		t.Errorf("resolve after apply: got %s, want %s", sym.Symbol.FqName, wantFq)
	}
	// The same plan again is stale now.
	e.fails("raw/apply-edits", applyParams, -32409, "CONFLICT")

	var diags struct {
		Diagnostics []struct {
			Location struct{ FilePath string } `json:"location"`
		} `json:"diagnostics"`
	}
	check("raw/diagnostics", map[string]any{"filePaths": []string{e.path(sc.broken), e.path(sc.use)}}, &diags)
	if len(diags.Diagnostics) == 0 {
		t.Errorf("diagnostics: none for %s", sc.broken)
	}
	for _, d := range diags.Diagnostics {
		if d.Location.FilePath != e.path(sc.broken) {
			t.Errorf("diagnostic outside the broken file: %+v", d)
		}
	}

	var search struct {
		Matches []struct{ LineNumber, ColumnNumber int } `json:"matches"`
	}
	check("raw/workspace-search", map[string]any{"pattern": sc.newName + `\(`, "regex": true}, &search)
	if len(search.Matches) != 3 {
		t.Errorf("search: got %+v, want the declaration and the 2 calls", search.Matches)
	}

	// CREATE_FILE and DELETE_FILE.
	created := e.path(sc.newFile)
	check("raw/apply-edits", map[string]any{"edits": []any{}, "fileHashes": []any{},
		"fileOperations": []any{map[string]any{"type": "CREATE_FILE", "filePath": created, "content": sc.newFileSource}}}, nil)
	check("raw/references", map[string]any{"position": call(sc.use, sc.newName)}, &refs)
	if len(refs.References) != sc.refs+sc.newFileRefs {
		t.Errorf("references after CREATE_FILE: got %d, want %d", len(refs.References), sc.refs+sc.newFileRefs)
	}
	e.fails("raw/apply-edits", map[string]any{"edits": []any{}, "fileHashes": []any{},
		"fileOperations": []any{map[string]any{"type": "CREATE_FILE", "filePath": created, "content": "x"}}}, -32409, "CONFLICT")
	check("raw/apply-edits", map[string]any{"edits": []any{}, "fileHashes": []any{},
		"fileOperations": []any{map[string]any{"type": "DELETE_FILE", "filePath": created, "expectedHash": hashOf(t, created)}}}, nil)
	if _, err := os.Stat(created); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("DELETE_FILE left %s: %v", created, err)
	}
}

// TestKastBadInput: every refusal has its documented code, and nothing is
// written when a request is refused.
func TestKastBadInput(t *testing.T) {
	e := newKastEnv(t, "kotlin.txtar")
	use := "src/main/kotlin/sample/Use.kt"
	path := e.path(use)
	before, _ := os.ReadFile(path)
	hash := hashOf(t, path)
	const v, nf, conflict = -32400, -32404, -32409

	e.fails("raw/resolve", nil, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": "src/main/kotlin/sample/Use.kt", "offset": 0}}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": "/elsewhere/Use.kt", "offset": 0}}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": path, "offset": len(before) + 1}}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": path, "offset": -1}}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": e.pos(use, "greet", 0), "bogus": true}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": path, "offset": 0, "extra": 1}}, v, "VALIDATION_ERROR")
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": e.path("src/main/kotlin/sample/Missing.kt"), "offset": 0}}, nf, "NOT_FOUND")
	e.fails("raw/resolve", map[string]any{"position": e.pos(use, "\"kast\"", 0)}, nf, "NOT_FOUND")
	e.fails("raw/workspace-symbol", map[string]any{"pattern": "  "}, v, "VALIDATION_ERROR")
	e.fails("raw/workspace-search", map[string]any{"pattern": "(", "regex": true}, v, "VALIDATION_ERROR")
	e.fails("raw/call-hierarchy", map[string]any{"position": e.pos(use, "greet", 0)}, v, "VALIDATION_ERROR")
	e.fails("runtime/shutdown", map[string]any{}, -32501, "CAPABILITY_NOT_SUPPORTED")

	// An offset inside a multi-byte character.
	utf := e.path("src/main/kotlin/sample/Utf.kt")
	if err := os.WriteFile(utf, []byte("package sample\n\nval café = \"é\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.fails("raw/resolve", map[string]any{"position": map[string]any{"filePath": utf, "offset": strings.Index("package sample\n\nval café", "é") + 1}}, v, "VALIDATION_ERROR")

	edit := func(start, end int, text string) map[string]any {
		return map[string]any{"filePath": path, "startOffset": start, "endOffset": end, "newText": text}
	}
	hashes := []any{map[string]any{"filePath": path, "hash": hash}}
	e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(0, 3, "x"), edit(2, 5, "y")}, "fileHashes": hashes}, v, "VALIDATION_ERROR")
	e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(0, 3, "x")}, "fileHashes": []any{}}, v, "VALIDATION_ERROR")
	e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(5, 3, "x")}, "fileHashes": hashes}, v, "VALIDATION_ERROR")
	e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(0, len(before)+1, "x")}, "fileHashes": hashes}, v, "VALIDATION_ERROR")
	e.fails("raw/apply-edits", map[string]any{"edits": []any{}, "fileHashes": []any{}}, v, "VALIDATION_ERROR")
	e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(0, 3, "x")}, "fileHashes": append(hashes, hashes[0])}, v, "VALIDATION_ERROR")
	stale := e.fails("raw/apply-edits", map[string]any{"edits": []any{edit(0, 3, "x")},
		"fileHashes": []any{map[string]any{"filePath": path, "hash": strings.Repeat("0", 64)}}}, conflict, "CONFLICT")
	var data struct {
		Details map[string]string `json:"details"`
	}
	_ = json.Unmarshal(stale.Data, &data)
	if data.Details["expectedHash"] != strings.Repeat("0", 64) || data.Details["actualHash"] != hash {
		t.Errorf("conflict details: %s", stale.Data)
	}
	// A valid edit in one file and a stale hash in another: neither is written.
	second := e.path("src/main/kotlin/sample/SecondaryUse.kt")
	e.fails("raw/apply-edits", map[string]any{
		"edits":      []any{edit(0, 3, "x"), map[string]any{"filePath": second, "startOffset": 0, "endOffset": 1, "newText": "y"}},
		"fileHashes": []any{hashes[0], map[string]any{"filePath": second, "hash": "stale"}}}, conflict, "CONFLICT")
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Errorf("a refused request changed %s", path)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	for _, de := range entries {
		if strings.Contains(de.Name(), ".kast-") {
			t.Errorf("temporary file left behind: %s", de.Name())
		}
	}
}

// TestKastAliasesAndFamily: each method answers under kast/<camelCase> too,
// and the family lists them.
func TestKastAliasesAndFamily(t *testing.T) {
	for name, want := range map[string]string{"raw/call-hierarchy": "kast/rawCallHierarchy", "runtime/status": "kast/runtimeStatus",
		"health": "kast/health", "raw/semantic-insertion-point": "kast/rawSemanticInsertionPoint"} {
		if got := kastAlias(name); got != want {
			t.Errorf("kastAlias(%s) = %s, want %s", name, got, want)
		}
	}
	reg := server.NewRegistry()
	New(host.New(host.Options{}), Options{}).Register(reg)
	for _, name := range []string{"raw/resolve", "kast/rawResolve", "capabilities", "kast/capabilities", "raw/apply-edits", "kast/rawApplyEdits"} {
		if _, ok := reg.Lookup(name); !ok {
			t.Errorf("%s is not registered", name)
		}
	}
	fam, _ := json.Marshal(reg.Families()["kast"])
	if !strings.Contains(string(fam), `"raw/workspace-search":"kast/rawWorkspaceSearch"`) {
		t.Errorf("kast family: %s", fam)
	}
}

// jsonKeys turns YAML maps with non-string keys (response codes) into JSON objects.
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

func hashOf(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return contentHash(b)
}

var contentHash = edit.Hash

// The daemon resolves references in the background once indexed, so that
// raw/references reads stored uses.
func TestKastDaemonStoresUses(t *testing.T) {
	e := newKastEnv(t, "go.txtar")
	deadline := time.Now().Add(30 * time.Second)
	for {
		if ws := e.host.Open(e.root); ws != nil && ws.UsesHold() {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("the daemon's index has no stored uses 30 s after it opened")
		}
		time.Sleep(20 * time.Millisecond)
	}
}
