package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// The CLI and the MCP server embed with the learned model unless told
// otherwise, and --switch-model moves an index between the built-in models.
func TestSearchDefaultEmbedderIsLearned(t *testing.T) {
	t.Setenv("KAST_EMBEDDER", "")
	var exit int
	root := newRootCmd(&exit)
	for _, name := range []string{"search", "mcp"} {
		cmd, _, err := root.Find([]string{name})
		if err != nil {
			t.Fatal(err)
		}
		if f := cmd.Flags().Lookup("embedder"); f == nil || f.DefValue != "learned" {
			t.Errorf("kast %s --embedder defaults to %v, want learned", name, f)
		}
	}
	if embedFromEnv().provider != "learned" {
		t.Errorf("servers' embedder without KAST_EMBEDDER: %q, want learned", embedFromEnv().provider)
	}

	dir, env := searchWorkspace(t)
	model := func() (string, float64) {
		t.Helper()
		out, code := runKast(t, dir, env, "search", "--status-json")
		var st map[string]any
		if code != 0 || json.Unmarshal([]byte(out), &st) != nil {
			t.Fatalf("--status-json: exit %d, %q", code, out)
		}
		m, _ := st["embedding_model"].(string)
		n, _ := st["embedded_chunks"].(float64)
		return m, n
	}
	if _, code := runKast(t, dir, env, "search", "--index"); code != 0 {
		t.Fatalf("--index: exit %d", code)
	}
	learned, n := model()
	if !strings.HasPrefix(learned, "kast-learned-v1-192-") || n == 0 {
		t.Fatalf("after --index: model %q with %v vectors", learned, n)
	}
	if _, code := runKast(t, dir, env, "search", "--switch-model", "hashed"); code != 0 {
		t.Fatalf("--switch-model hashed: exit %d", code)
	}
	if m, n2 := model(); m != "kast-hashed-v1-256" || n2 != n {
		t.Fatalf("after --switch-model hashed: %q with %v vectors, want kast-hashed-v1-256 with %v", m, n2, n)
	}
	if _, code := runKast(t, dir, env, "search", "--switch-model", "learned"); code != 0 {
		t.Fatalf("--switch-model learned: exit %d", code)
	}
	if m, n2 := model(); !strings.HasPrefix(m, "kast-learned-v1-192-") || n2 != n {
		t.Fatalf("after --switch-model learned: %q with %v vectors", m, n2)
	}
	if _, stderr, code := runKastErr(t, dir, env, "search", "--switch-model", "nomic-embed-text"); code == 0 || !strings.Contains(stderr, "--embedder ollama or openai") {
		t.Fatalf("--switch-model with a service's model and no service: exit %d, %q", code, stderr)
	}
}
