package kast

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// laterCatalog reads the result types Kast's later catalog lists per method
// (successType, failureType, responseVariants).
func laterCatalog(t *testing.T, ref string) map[string][]string {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(ref, "later-0660b755", "commands.json"))
	if err != nil {
		t.Fatal(err)
	}
	var c struct {
		Commands map[string]struct {
			SuccessType      string   `json:"successType"`
			FailureType      string   `json:"failureType"`
			ResponseVariants []string `json:"responseVariants"`
		} `json:"commands"`
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		t.Fatal(err)
	}
	types := map[string][]string{}
	for name, cmd := range c.Commands {
		for _, typ := range append([]string{cmd.SuccessType, cmd.FailureType}, cmd.ResponseVariants...) {
			if typ != "" {
				types[name] = append(types[name], typ)
			}
		}
	}
	return types
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

// checkLater checks a result of the later catalog's form: its type is one
// the catalog lists for the method, with the envelope and, for results that
// carry them, symbols and locations valid for the v0.7 components.
func checkLater(t *testing.T, s *kastSchemas, types map[string][]string, method string, res json.RawMessage) bool {
	t.Helper()
	var m map[string]any
	if json.Unmarshal(res, &m) != nil {
		return false
	}
	typ, _ := m["type"].(string)
	if method == "raw/workspace-files" && m["snapshotToken"] != nil {
		b, _ := json.Marshal(stripLater(m))
		s.validate(t, method, b)
		return true
	}
	// v0.7's own result types (X_SUCCESS, X_FAILURE) are checked as v0.7's.
	v07 := (strings.HasSuffix(typ, "_SUCCESS") || strings.HasSuffix(typ, "_FAILURE")) && !strings.HasPrefix(typ, "SCOPE_MUTATION")
	if typ == "" || v07 || !slices.Contains(types[method], typ) {
		return false
	}
	if _, ok := m["ok"].(bool); !ok && method != "raw/workspace-files-continuation" {
		t.Errorf("%s: %s without ok: %s", method, typ, res)
	}
	if sub, ok := m["subject"]; ok {
		s.component(t, "Symbol", sub)
	}
	for _, field := range []string{"references", "implementations"} {
		list, _ := m[field].([]any)
		for _, v := range list {
			comp := map[string]string{"references": "Location", "implementations": "Symbol"}[field]
			s.component(t, comp, v)
		}
	}
	return true
}
