package kast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"gopkg.in/yaml.v3"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// kastReference is Kast's reference material, next to the repository: the
// tests that replay it skip without it, except under CI, where they fail.
func kastReference(t *testing.T) string {
	t.Helper()
	return servertest.Shared(t, "reference/kast")
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

// TestKastAliasesAndFamily: each method's kast/<camelCase> alias is derived
// from its name, and the family lists them (testdata/kast/transcripts/
// aliases.txtar calls them).
func TestKastAliasesAndFamily(t *testing.T) {
	for name, want := range map[string]string{"raw/call-hierarchy": "kast/rawCallHierarchy", "runtime/status": "kast/runtimeStatus",
		"health": "kast/health", "raw/semantic-insertion-point": "kast/rawSemanticInsertionPoint"} {
		if got := kastAlias(name); got != want {
			t.Errorf("kastAlias(%s) = %s, want %s", name, got, want)
		}
	}
	reg := server.NewRegistry()
	New(host.New(host.Options{}), Options{}).Register(reg)
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
