package kast

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers/kast/kastconform"
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

// kastSchemas are Kast's contracts (kastconform), checked from a test.
type kastSchemas struct{ k *kastconform.Contracts }

func loadKastSchemas(t *testing.T, ref string) *kastSchemas {
	t.Helper()
	k, err := kastconform.Load(ref)
	if err != nil {
		t.Fatal(err)
	}
	return &kastSchemas{k}
}

// validate checks a result against the schema of its method.
func (s *kastSchemas) validate(t *testing.T, method string, result json.RawMessage) {
	t.Helper()
	if err := s.k.Validate(method, result); err != nil {
		t.Errorf("%s result: %v", method, err)
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
