package lsp

import (
	"context"
	"testing"
	"time"

	"github.com/kast-dev/kast/server/servertest"
)

// Go hovers say what the code says: the declaration with its keyword, an
// alias apart from a defined type, a variable's type where the initializer
// shows it; and a client that asks for plaintext gets no markdown fences.
func TestLSPGoHoverDeclarations(t *testing.T) {
	e := startLSP(t, map[string]string{
		"go.mod": "module example.com/hv\n",
		"hv.go":  "package hv\n\n// PositionalArgs checks.\ntype PositionalArgs func(cmd *int, args []string) error\n\ntype A = PositionalArgs\n\ntype B PositionalArgs\n\nvar argWoFlags = []string{}\n\nvar n int\n\nconst k = 3\n\ntype S struct{ f int }\n",
	})
	e.reindex()
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{3, 5, "```go\ntype PositionalArgs func(cmd *int, args []string) error\n```\n\nPositionalArgs checks."},
		{5, 5, "```go\ntype A = PositionalArgs\n```"},
		{7, 5, "```go\ntype B PositionalArgs\n```"},
		{9, 4, "```go\nvar argWoFlags []string\n```"},
		{11, 4, "```go\nvar n int\n```"},
		{13, 6, "```go\nconst k = 3\n```"},
		{15, 5, "```go\ntype S struct{ f int }\n```"},
	} {
		var hover struct {
			Contents struct{ Kind, Value string } `json:"contents"`
		}
		if err := e.client.Call(e.ctx, "textDocument/hover", e.at("hv.go", c.line, c.char), &hover); err != nil {
			t.Fatal(err)
		}
		if hover.Contents.Value != c.want {
			t.Errorf("hover at %d:%d = %q, want %q", c.line, c.char, hover.Contents.Value, c.want)
		}
	}
}

// A client whose hover contentFormat puts plaintext first gets plain text.
func TestLSPHoverPlaintextWhenAsked(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"go.mod": "module example.com/p\n", "p.go": "package p\n\n// N counts.\nvar N = 3\n"})
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, _ := servertest.Pipe(t, newTestServer(t), servertest.Header)
	caps := map[string]any{"textDocument": map[string]any{"hover": map[string]any{"contentFormat": []string{"plaintext", "markdown"}}}}
	if _, err := client.Initialize(ctx, root, caps); err != nil {
		t.Fatal(err)
	}
	e := &lspEnv{t, ctx, client, root}
	e.reindex()
	var hover struct {
		Contents struct{ Kind, Value string } `json:"contents"`
	}
	if err := client.Call(ctx, "textDocument/hover", e.at("p.go", 3, 4), &hover); err != nil {
		t.Fatal(err)
	}
	if hover.Contents.Kind != "plaintext" || hover.Contents.Value != "var N int\n\nN counts." {
		t.Errorf("hover = %+v, want plaintext without fences", hover.Contents)
	}
}
