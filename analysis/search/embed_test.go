package search

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// fakeEmbeddings serves Ollama's /api/embed and OpenAI's /v1/embeddings with
// 3-dimensional vectors: (len, count of 'a', 1), and records requests.
func fakeEmbeddings(t *testing.T, seen *[]map[string]any) *httptest.Server {
	vec := func(s string) []float32 {
		return []float32{float32(len(s)), float32(strings.Count(s, "a")), 1}
	}
	mux := http.NewServeMux()
	decode := func(r *http.Request) (map[string]any, []string) {
		var body map[string]any
		if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
			t.Error(err)
		}
		*seen = append(*seen, body)
		var in []string
		for _, x := range body["input"].([]any) {
			in = append(in, x.(string))
		}
		return body, in
	}
	mux.HandleFunc("POST /api/embed", func(w http.ResponseWriter, r *http.Request) {
		body, in := decode(r)
		var out [][]float32
		for _, s := range in {
			out = append(out, vec(s))
		}
		json.NewEncoder(w).Encode(map[string]any{"model": body["model"], "embeddings": out, "total_duration": 1})
	})
	mux.HandleFunc("POST /v1/embeddings", func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer sk-test" {
			http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
			return
		}
		body, in := decode(r)
		var data []map[string]any
		for i := len(in) - 1; i >= 0; i-- { // out of order: index decides
			data = append(data, map[string]any{"object": "embedding", "index": i, "embedding": vec(in[i])})
		}
		json.NewEncoder(w).Encode(map[string]any{"object": "list", "model": body["model"], "data": data})
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestOllamaEmbedder(t *testing.T) {
	var seen []map[string]any
	srv := fakeEmbeddings(t, &seen)
	e := &HTTPEmbedder{Kind: "ollama", BaseURL: srv.URL, Name: "nomic-embed-text"}
	vecs, err := e.Embed(context.Background(), []string{"aaa", "bb"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Dim() != 3 || len(vecs) != 2 || vecs[0][1] == 0 || vecs[1][1] != 0 {
		t.Fatalf("dim %d, vecs %v", e.Dim(), vecs)
	}
	if seen[0]["model"] != "nomic-embed-text" || e.Model() != "ollama:nomic-embed-text" {
		t.Fatalf("request %v, model %s", seen[0], e.Model())
	}
	// The engine records the model and searches with it.
	eng, _ := fixture(t, e)
	st, _ := eng.Status()
	if st.Model != "ollama:nomic-embed-text" || st.Dim != 3 || st.Embedded == 0 {
		t.Fatalf("status %+v", st)
	}
	if _, err := eng.Semantic(context.Background(), RankedQuery{Query: "config", Threshold: -1}); err != nil {
		t.Fatal(err)
	}
}

func TestOpenAIEmbedder(t *testing.T) {
	var seen []map[string]any
	srv := fakeEmbeddings(t, &seen)
	e := &HTTPEmbedder{Kind: "openai", BaseURL: srv.URL, Name: "text-embedding-3-small", APIKey: "sk-test"}
	vecs, err := e.Embed(context.Background(), []string{"a", "aaaa"})
	if err != nil {
		t.Fatal(err)
	}
	// Reordered by index: the longer second input has the larger first component.
	if vecs[1][0] <= vecs[0][0] {
		t.Fatalf("vectors not ordered by index: %v", vecs)
	}
	if seen[0]["encoding_format"] != "float" {
		t.Errorf("request %v", seen[0])
	}
	bad := &HTTPEmbedder{Kind: "openai", BaseURL: srv.URL, Name: "m", APIKey: "wrong"}
	if _, err := bad.Embed(context.Background(), []string{"x"}); err == nil || !strings.Contains(err.Error(), "HTTP 401") {
		t.Fatalf("bad key: %v", err)
	}
}
