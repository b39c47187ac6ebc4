package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// sampleWorkspace copies the embedded sample into a temp dir with a private
// index cache, and adds files the indexer must skip with a reason.
func sampleWorkspace(t *testing.T) (root string, env []string) {
	t.Helper()
	dir, err := extractSample()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	write := func(rel string, data []byte) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("src/main/kotlin/sample/Binary.kt", []byte("fun x() = 1\x00\x01\x02"))
	write("src/main/kotlin/sample/Huge.kt", []byte(strings.Repeat("// filler line\n", 200000)))
	write("node_modules/lib/index.js", []byte("function ignored() {}"))
	return dir, append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
}

func runKast(t *testing.T, dir string, env []string, args ...string) (stdout string, code int) {
	t.Helper()
	cmd := kastCmd(t, args...)
	cmd.Dir, cmd.Env = dir, env
	var errBuf strings.Builder
	cmd.Stderr = &errBuf
	out, err := cmd.Output()
	if err != nil {
		if _, ok := err.(*exec.ExitError); !ok {
			t.Fatalf("kast %v: %v", args, err)
		}
	}
	if code := cmd.ProcessState.ExitCode(); code > 1 {
		t.Logf("kast %v stderr: %s", args, errBuf.String())
	}
	return string(out), cmd.ProcessState.ExitCode()
}

func TestIndexSummaryAndIncrementalRun(t *testing.T) {
	root, env := sampleWorkspace(t)
	out, code := runKast(t, root, env, "index", "--json", root)
	if code != 0 {
		t.Fatalf("index exit %d: %s", code, out)
	}
	var rep struct {
		Files, Lines, Definitions, References, Parsed, Unchanged int
		Skipped                                                  map[string]int
		MBPerSecond                                              float64 `json:"mbPerSecond"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatalf("index --json: %v\n%s", err, out)
	}
	if rep.Files != 9 || rep.Parsed != 9 || rep.Definitions < 8 || rep.References < 3 || rep.Lines < 20 {
		t.Errorf("first run: %+v", rep)
	}
	if rep.Skipped["binary"] != 1 || rep.Skipped["tooLarge"] != 1 {
		t.Errorf("binary and oversized files must be skipped and counted: %v", rep.Skipped)
	}
	out, _ = runKast(t, root, env, "index", "--json", root)
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if rep.Parsed != 0 || rep.Unchanged != 9 {
		t.Errorf("second run must read nothing: %+v", rep)
	}
	text, code := runKast(t, root, env, "index", root)
	for _, want := range []string{"files", "lines", "bytes", "definitions", "references", " ms\n", "skipped"} {
		if !strings.Contains(text, want) {
			t.Errorf("summary lacks %q:\n%s", want, text)
		}
	}
	if strings.Contains(text, "MB/s") {
		t.Errorf("a run that parsed nothing has no throughput to show:\n%s", text)
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
	if _, code := runKast(t, root, env, "index", filepath.Join(root, "missing")); code != 2 {
		t.Errorf("indexing a missing directory: exit %d, want 2", code)
	}
}

func TestQuery(t *testing.T) {
	root, env := sampleWorkspace(t)
	kt := "src/main/kotlin/sample/"
	for _, tc := range []struct {
		args []string
		want []string
		code int
	}{
		{[]string{"def", kt + "Use.kt:3:21"}, []string{kt + "Greeter.kt:4:5: function greet (package"}, 0},
		{[]string{"refs", kt + "Greeter.kt:4:5"}, []string{kt + "Use.kt:3:21: call", kt + "SecondaryUse.kt:3:26: call"}, 0},
		{[]string{"symbols", "Greeter"}, []string{"interface Greeter", "class FriendlyGreeter", "class LoudGreeter"}, 0},
		{[]string{"outline", kt + "Types.kt"}, []string{kt + "Types.kt:3:11: interface Greeter", kt + "Types.kt:7:7: class LoudGreeter"}, 0},
		{[]string{"def", kt + "Use.kt:1:1"}, nil, 1},     // the package keyword: nothing to find
		{[]string{"symbols", "zzzzzz"}, nil, 1},          // no match
		{[]string{"def", kt + "Use.kt:99:1"}, nil, 2},    // outside the file
		{[]string{"def", kt + "Use.kt"}, nil, 2},         // not FILE:LINE:COL
		{[]string{"outline", kt + "Missing.kt"}, nil, 2}, // not indexed
	} {
		out, code := runKast(t, root, env, append([]string{"query"}, tc.args...)...)
		if code != tc.code {
			t.Errorf("query %v: exit %d, want %d\n%s", tc.args, code, tc.code, out)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(out, w) {
				t.Errorf("query %v: output lacks %q:\n%s", tc.args, w, out)
			}
		}
	}
	out, code := runKast(t, root, env, "query", "refs", "--json", kt+"Greeter.kt:4:5")
	var locs []struct {
		Path string
		Line int
		Col  int
		Role string
	}
	if err := json.Unmarshal([]byte(out), &locs); err != nil || code != 0 || len(locs) != 3 || locs[0].Role != "call" {
		t.Fatalf("refs --json: %v %d %s", err, code, out)
	}
}

// kast index --references resolves every file once; a second run, with
// nothing changed, has nothing to resolve.
func TestIndexReferences(t *testing.T) {
	root, env := sampleWorkspace(t)
	for _, want := range []string{"references resolved in 9 files", "references resolved in 0 files"} {
		cmd := kastCmd(t, "index", "--references", root)
		cmd.Dir, cmd.Env = root, env
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), want) {
			t.Fatalf("kast index --references: %v; want %q in:\n%s", err, want, out)
		}
	}
}
