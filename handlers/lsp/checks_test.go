package lsp

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/server/servertest"
)

// A Go file that parses but does not compile gets the compiler's errors,
// labelled go/types, pushed after its syntax diagnostics when it is opened;
// fixing and saving it clears them.
func TestLSPPushesTypeErrors(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	e := startLSP(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go":   "package m\n\nfunc F(a int) int { return a }\n",
	})
	pushed := func(want func([]map[string]any) bool) []map[string]any {
		t.Helper()
		var last []map[string]any
		err := e.client.AwaitNotifications(e.ctx, "textDocument/publishDiagnostics", func(notes []*servertest.Message) bool {
			for i := len(notes) - 1; i >= 0; i-- {
				var p struct {
					URI         string           `json:"uri"`
					Diagnostics []map[string]any `json:"diagnostics"`
				}
				_ = json.Unmarshal(notes[i].Params, &p)
				if p.URI == e.uri("b.go") {
					last = p.Diagnostics
					return want(last)
				}
			}
			return false
		})
		if err != nil {
			t.Fatalf("diagnostics of b.go: %v; last %v", err, last)
		}
		return last
	}
	broken := "package m\n\nfunc G() string {\n\treturn F(\"x\") + missing()\n}\n"
	writeFile(t, filepath.Join(e.root, "b.go"), broken)
	if err := e.client.DidOpen(e.uri("b.go"), "go", 1, broken); err != nil {
		t.Fatal(err)
	}
	// kast's own findings come first; the toolchain's follow when it has run.
	diags := pushed(func(d []map[string]any) bool {
		for _, x := range d {
			if x["source"] == "go/types" {
				return true
			}
		}
		return false
	})
	var got []string
	for _, d := range diags {
		got = append(got, d["source"].(string)+": "+d["message"].(string))
	}
	joined := strings.Join(got, "\n")
	if !strings.Contains(joined, "go/types: undefined: missing") || !strings.Contains(joined, "go/types: cannot use \"x\"") {
		t.Fatalf("pushed: %s", joined)
	}
	fixed := "package m\n\nfunc G() int {\n\treturn F(1)\n}\n"
	if err := e.client.Notify("textDocument/didChange", map[string]any{
		"textDocument":   map[string]any{"uri": e.uri("b.go"), "version": 2},
		"contentChanges": []map[string]any{{"text": fixed}},
	}); err != nil {
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(e.root, "b.go"), fixed)
	if err := e.client.Notify("textDocument/didSave", map[string]any{"textDocument": map[string]any{"uri": e.uri("b.go")}}); err != nil {
		t.Fatal(err)
	}
	pushed(func(d []map[string]any) bool { return len(d) == 0 })
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// kast.status says where each root's index lives and how many files it
// holds, and the client hears the same through window/logMessage.
func TestLSPStatusShowsIndex(t *testing.T) {
	e := startLSP(t, map[string]string{"a.go": "package m\n\nfunc A() {}\n"})
	var said []string
	err := e.client.AwaitNotifications(e.ctx, "window/logMessage", func(notes []*servertest.Message) bool {
		said = said[:0]
		for _, n := range notes {
			var p struct{ Message string }
			_ = json.Unmarshal(n.Params, &p)
			said = append(said, p.Message)
		}
		joined := strings.Join(said, "\n")
		return strings.Contains(joined, "kast: workspace "+e.root+", index ") && strings.Contains(joined, "kast: "+e.root+" indexed: 1 files")
	})
	if err != nil {
		t.Fatalf("logMessage: %v %q", err, said)
	}
	var status struct {
		Roots []struct {
			Path, Index string
			Files       int
		} `json:"roots"`
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		if err := e.client.Call(e.ctx, "workspace/executeCommand", map[string]any{"command": "kast.status"}, &status); err != nil {
			t.Fatal(err)
		}
		if len(status.Roots) == 1 && status.Roots[0].Files == 1 && status.Roots[0].Index != "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("kast.status: %+v", status)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
