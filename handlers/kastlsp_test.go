package handlers_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/handlers/kast/kastconform"
	"github.com/kast-dev/kast/server"
	"github.com/kast-dev/kast/server/servertest"
)

// lspPrelude opens the LSP session a Kast transcript then runs in: the
// Kast methods are LSP extensions on kast's LSP connection.
const lspPrelude = `-> {"method":"initialize","params":{"processId":null,"rootUri":"{{uri "."}}",
     "workspaceFolders":[{"uri":"{{uri "."}}","name":"ws"}],"capabilities":{}}}
<- {"result":{"capabilities":{"experimental":{"kastMethods":"$ANY","$...":true},"$...":true},"$...":true}}
~> {"method":"initialized","params":{}}
`

// TestKastTranscriptsOverLSP replays every Kast transcript, the later
// catalog's and v0.7's examples among them, over the LSP connection `kast
// lsp` serves, each result checked against Kast's contracts as on the
// daemon: one engine, the same answers, on every connection.
func TestKastTranscriptsOverLSP(t *testing.T) {
	var check func(t *testing.T, method string, result json.RawMessage)
	if ref, ok := servertest.SharedIfPresent(t, "reference/kast"); ok {
		contracts, err := kastconform.Load(ref)
		if err != nil {
			t.Fatal(err)
		}
		check = func(t *testing.T, method string, result json.RawMessage) {
			t.Helper()
			if err := contracts.Check(method, result); err != nil {
				t.Error(err)
			}
		}
	}
	originals, _ := filepath.Glob("../testdata/kast/transcripts/*.txtar")
	if len(originals) == 0 {
		t.Fatal("no Kast transcripts")
	}
	dir := t.TempDir()
	for _, orig := range originals {
		name := strings.TrimSuffix(filepath.Base(orig), ".txtar")
		text, err := os.ReadFile(orig)
		if err != nil {
			t.Fatal(err)
		}
		copied, err := overLSP(string(text), dir, filepath.Dir(orig))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".txtar"), []byte(copied), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	servertest.Transcripts{NewServer: func(t *testing.T, ws *servertest.Workspace) *server.Server {
		d := t.TempDir()
		t.Setenv("XDG_CONFIG_HOME", filepath.Join(d, "config"))
		t.Setenv("XDG_DATA_HOME", filepath.Join(d, "data"))
		t.Setenv("XDG_CACHE_HOME", filepath.Join(d, "cache"))
		h := host.New(host.Options{})
		t.Cleanup(h.Close)
		return server.New(handlers.LSP(handlers.NewProcess(h)).Options("test", nil))
	}, Framing: servertest.Header, CheckResult: check}.Run(t, filepath.Join(dir, "*.txtar"))
}

var workspaceLine = regexp.MustCompile(`(?m)^workspace (\S+)\n`)

// overLSP rewrites a transcript to run from dir over the LSP connection:
// its workspace includes point back at origDir, and the LSP handshake
// comes before its first step.
func overLSP(text, dir, origDir string) (string, error) {
	head, body, ok := strings.Cut(text, "-- transcript --\n")
	if !ok {
		return "", os.ErrInvalid
	}
	var err error
	body = workspaceLine.ReplaceAllStringFunc(body, func(line string) string {
		inc := workspaceLine.FindStringSubmatch(line)[1]
		abs, aerr := filepath.Abs(filepath.Join(origDir, inc))
		rel, rerr := filepath.Rel(dir, abs)
		if aerr != nil || rerr != nil {
			err = os.ErrInvalid
		}
		return "workspace " + filepath.ToSlash(rel) + "\n"
	})
	// The handshake goes after the includes, before the first step.
	at := 0
	if loc := workspaceLine.FindAllStringIndex(body, -1); len(loc) > 0 {
		at = loc[len(loc)-1][1]
	}
	return head + "-- transcript --\n" + body[:at] + lspPrelude + body[at:], err
}
