package main

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sync/atomic"
)

// model is an OpenAI-compatible chat completions endpoint on loopback: a
// turn's first request gets a call of one of kast's read-only tools, the
// request that carries the tool's result gets a short answer.
type model struct {
	url      string
	files    []string // workspace-relative paths the tool calls name
	requests atomic.Int64
	srv      *http.Server
}

func startModel(files []string) (*model, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	m := &model{url: "http://" + ln.Addr().String() + "/v1", files: files}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", m.complete)
	m.srv = &http.Server{Handler: mux}
	go m.srv.Serve(ln)
	return m, nil
}

func (m *model) close() { _ = m.srv.Close() }

func (m *model) complete(w http.ResponseWriter, r *http.Request) {
	n := m.requests.Add(1)
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	chunk := func(delta map[string]any, finish any, usage any) {
		c := map[string]any{"id": fmt.Sprintf("soak-%d", n), "object": "chat.completion.chunk", "created": 1, "model": "soak-model",
			"choices": []any{map[string]any{"index": 0, "delta": delta, "finish_reason": finish}}}
		if usage != nil {
			c["usage"] = usage
		}
		b, _ := json.Marshal(c)
		fmt.Fprintf(w, "data: %s\n\n", b)
		if f, ok := w.(http.Flusher); ok {
			f.Flush()
		}
	}
	usage := map[string]int{"prompt_tokens": 100, "completion_tokens": 10, "total_tokens": 110}
	if len(req.Messages) > 0 && req.Messages[len(req.Messages)-1].Role == "tool" {
		chunk(map[string]any{"role": "assistant", "content": "The tool answered; "}, nil, nil)
		chunk(map[string]any{"content": "that is all."}, "stop", usage)
	} else {
		name, args := m.toolCall(int(n))
		chunk(map[string]any{"role": "assistant", "tool_calls": []any{map[string]any{
			"index": 0, "id": fmt.Sprintf("call_%d", n), "type": "function",
			"function": map[string]any{"name": name, "arguments": args}}}}, nil, nil)
		chunk(map[string]any{}, "tool_calls", usage)
	}
	fmt.Fprint(w, "data: [DONE]\n\n")
}

// toolCall picks the n-th call in a rotation of read-only tools.
func (m *model) toolCall(n int) (string, string) {
	file := m.files[n%len(m.files)]
	var name string
	var args any
	switch n % 3 {
	case 0:
		name, args = "workspace_symbols", map[string]any{"query": []string{"Reader", "Write", "Parse", "Buffer", "Len"}[n%5]}
	case 1:
		name, args = "file_outline", map[string]any{"path": file}
	default:
		name, args = "read_file", map[string]any{"path": file, "limit": 40}
	}
	b, _ := json.Marshal(args)
	return name, string(b)
}
