package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
)

// servedEmbeddings plays Ollama (/api/embed) and an OpenAI-compatible server
// (/v1/embeddings, as llama.cpp's and vLLM's servers speak it) on loopback,
// with 4-dimensional vectors of the text's shape; it counts the texts it
// embedded.
func servedEmbeddings(t *testing.T, texts *atomic.Int64) string {
	vec := func(s string) []float32 {
		return []float32{float32(len(s)), float32(strings.Count(s, "e")), float32(strings.Count(s, "(")), 1}
	}
	inputs := func(r *http.Request) (string, []string) {
		var body struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		json.NewDecoder(r.Body).Decode(&body)
		texts.Add(int64(len(body.Input)))
		return body.Model, body.Input
	}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		model, in := inputs(r)
		var out [][]float32
		for _, s := range in {
			out = append(out, vec(s))
		}
		json.NewEncoder(w).Encode(map[string]any{"model": model, "embeddings": out})
	})
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-local" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		model, in := inputs(r)
		var data []map[string]any
		for i, s := range in {
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec(s)})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": model, "data": data})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL
}

// --switch-model moves an index to a served model and re-embeds every
// chunk through it: Ollama's wire, then an OpenAI-compatible one; the
// recorded model and dimension follow, and semantic search uses them.
func TestSearchSwitchModelToServedEmbedders(t *testing.T) {
	dir, env := searchWorkspace(t)
	var texts atomic.Int64
	url := servedEmbeddings(t, &texts)
	env = append(env, "KAST_EMBED_API_KEY=sk-local")
	status := func(args ...string) map[string]any {
		t.Helper()
		out, code := runKast(t, dir, env, append([]string{"search", "--status-json"}, args...)...)
		var st map[string]any
		if err := json.Unmarshal([]byte(out), &st); code != 0 || err != nil {
			t.Fatalf("--status-json: exit %d, %v, %q", code, err, out)
		}
		return st
	}
	if _, code := runKast(t, dir, env, "search", "--index", "."); code != 0 {
		t.Fatalf("--index: exit %d", code)
	}
	chunks := status()["embedded_chunks"].(float64)
	for _, c := range []struct{ embedder, model, want string }{
		{"ollama", "nomic-embed-text", "nomic-embed-text"},
		{"openai", "Qwen3-Embedding-0.6B", "Qwen3-Embedding-0.6B"},
	} {
		before := texts.Load()
		flags := []string{"--embedder", c.embedder, "--embed-url", url}
		if out, code := runKast(t, dir, env, append(append([]string{"search"}, flags...), "--switch-model", c.model)...); code != 0 {
			t.Fatalf("--switch-model %s: exit %d, %q", c.model, code, out)
		}
		// Every chunk, and one probe that learns the model's dimension.
		if n := texts.Load() - before; float64(n) != chunks+1 {
			t.Errorf("%s: %d texts embedded, want every chunk (%v) and the probe", c.embedder, n, chunks)
		}
		st := status(flags...)
		if !strings.Contains(st["embedding_model"].(string), c.want) || st["embedding_dimensions"] != 4.0 || st["embedded_chunks"] != chunks {
			t.Errorf("%s: status %v", c.embedder, st)
		}
		out, code := runKast(t, dir, env, append(append([]string{"search"}, flags...), "--sem", "--topk", "1", "parse config")...)
		if code != 0 || out == "" {
			t.Errorf("%s: --sem exit %d, %q", c.embedder, code, out)
		}
	}
}
