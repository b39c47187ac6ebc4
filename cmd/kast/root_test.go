package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// runKastErr runs kast in dir and returns its stdout, stderr and exit code.
func runKastErr(t *testing.T, dir string, env []string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	cmd := kastCmd(t, args...)
	cmd.Dir, cmd.Env = dir, env
	var out, errBuf strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &errBuf
	_ = cmd.Run()
	if cmd.ProcessState == nil {
		t.Fatalf("kast %v did not run", args)
	}
	return out.String(), errBuf.String(), cmd.ProcessState.ExitCode()
}

// markedSample is the sample workspace made a project (settings.gradle.kts
// at its top), with a subfolder to stand in.
func markedSample(t *testing.T) (root, nested string, env []string) {
	root, env = sampleWorkspace(t)
	if err := os.WriteFile(filepath.Join(root, "settings.gradle.kts"), []byte("rootProject.name = \"sample\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return root, filepath.Join(root, "src", "main", "kotlin"), env
}

// From a subfolder, the workspace is the project around it: files outside
// the subfolder are found, and printed relative to where the user stands.
func TestRootFoundFromNestedFolder(t *testing.T) {
	root, nested, env := markedSample(t)
	out, errOut, code := runKastErr(t, nested, env, "query", "symbols", "Greet")
	if code != 0 || !strings.Contains(out, "../../../go/greet/greet.go:") || !strings.Contains(out, "sample/Types.kt:3:11: interface Greeter") {
		t.Errorf("symbols from a subfolder: exit %d, want the Go file as ../../../go/… and Kotlin as sample/…:\n%s%s", code, out, errOut)
	}
	if strings.Contains(out, root) {
		t.Errorf("human output must not print absolute paths:\n%s", out)
	}
	out, errOut, code = runKastErr(t, nested, env, "query", "def", "sample/Use.kt:3:21")
	if code != 0 || !strings.HasPrefix(out, "sample/Greeter.kt:4:5: function greet") {
		t.Errorf("def from a subfolder: exit %d:\n%s%s", code, out, errOut)
	}
	// A file argument elsewhere: the root is found around the file.
	out, errOut, code = runKastErr(t, filepath.Join(root, "go"), env, "query", "outline", "../src/main/kotlin/sample/Types.kt")
	if code != 0 || !strings.Contains(out, "../src/main/kotlin/sample/Types.kt:3:11: interface Greeter") {
		t.Errorf("outline of a file in a sibling folder: exit %d:\n%s%s", code, out, errOut)
	}
	// --json keeps absolute paths.
	out, _, code = runKastErr(t, nested, env, "query", "refs", "--json", "sample/Greeter.kt:4:5")
	var locs []struct{ Path string }
	if err := json.Unmarshal([]byte(out), &locs); err != nil || code != 0 || len(locs) == 0 {
		t.Fatalf("refs --json: %v, exit %d: %s", err, code, out)
	}
	for _, l := range locs {
		if !filepath.IsAbs(l.Path) || !strings.HasPrefix(l.Path, root) {
			t.Errorf("--json path %s: want absolute, under %s", l.Path, root)
		}
	}
	// kast index from the subfolder indexes the whole project.
	out, _, _ = runKastErr(t, nested, env, "index", "--json")
	var rep struct {
		Root  string
		Files int
	}
	// Ten files: the nine of the sample and settings.gradle.kts.
	if err := json.Unmarshal([]byte(out), &rep); err != nil || rep.Root != root || rep.Files != 10 {
		t.Errorf("index from a subfolder: %v %+v, want root %s and 10 files", err, rep, root)
	}
	out, _, _ = runKastErr(t, nested, env, "index")
	if !strings.HasPrefix(out, "indexed ../../..\n") {
		t.Errorf("index prints the root relative to the current folder:\n%s", out)
	}
	// kast search shares the discovery, and prints ../ paths like grep.
	out, errOut, code = runKastErr(t, nested, env, "search", "-l", "Greet", "../../../go")
	if code != 0 || strings.TrimSpace(out) != "../../../go/greet/greet.go" {
		t.Errorf("search from a subfolder: exit %d:\n%s%s", code, out, errOut)
	}
}

// Outside any project kast refuses to take the home folder or a temp root as
// a workspace, and says to pass --root; a plain folder is its own root.
func TestRootOutsideAnyProject(t *testing.T) {
	sample, env := sampleWorkspace(t)
	home, tmp := t.TempDir(), t.TempDir()
	env = append(env, "HOME="+home, "TMPDIR="+tmp)
	for _, tc := range []struct {
		dir  string
		args []string
	}{
		{home, []string{"query", "symbols", "Greeter"}},
		{tmp, []string{"query", "symbols", "Greeter"}},
		{home, []string{"index"}},
		{tmp, []string{"search", "greet"}},
		{home, []string{"serve", "--stdio"}},
	} {
		_, errOut, code := runKastErr(t, tc.dir, env, tc.args...)
		if code != 2 || !strings.Contains(errOut, "pass --root DIR") || !strings.Contains(errOut, "too broad to index") {
			t.Errorf("kast %v in %s: exit %d, want 2 and a message naming --root:\n%s", tc.args, tc.dir, code, errOut)
		}
	}
	// --root overrides; paths stay relative to the current folder.
	out, errOut, code := runKastErr(t, home, env, "query", "--root", sample, "symbols", "Greeter")
	rel, _ := filepath.Rel(home, filepath.Join(sample, "src/main/kotlin/sample/Types.kt"))
	if code != 0 || !strings.Contains(out, filepath.ToSlash(rel)+":3:11: interface Greeter") {
		t.Errorf("query --root from home: exit %d, want %s:\n%s%s", code, rel, out, errOut)
	}
	out, _, code = runKastErr(t, home, env, "index", "--json", "--root", sample)
	if code != 0 || !strings.Contains(out, `"files": 9`) {
		t.Errorf("index --root: exit %d:\n%s", code, out)
	}
	if out, _, code := runKastErr(t, home, env, "search", "--root", sample, "-l", "fun greet", sample); code != 0 || !strings.Contains(out, "Greeter.kt") {
		t.Errorf("search --root: exit %d:\n%s", code, out)
	}
	// --root beats a project marker around the current folder.
	os.WriteFile(filepath.Join(sample, "go", "go.mod"), []byte("module example.com/greet\n"), 0o644)
	out, _, _ = runKastErr(t, filepath.Join(sample, "go"), env, "index", "--json")
	if !strings.Contains(out, `"files": 1,`) {
		t.Errorf("from a Go module inside the sample, the module is the root:\n%s", out)
	}
	out, _, _ = runKastErr(t, filepath.Join(sample, "go"), env, "index", "--json", "--root", "..")
	if !strings.Contains(out, `"files": 9,`) {
		t.Errorf("--root .. must index the whole sample:\n%s", out)
	}
	if _, errOut, code := runKastErr(t, home, env, "query", "--root", filepath.Join(home, "missing"), "symbols", "x"); code != 2 || !strings.Contains(errOut, "is not a folder") {
		t.Errorf("a missing --root: exit %d: %s", code, errOut)
	}
}

// Messages say positions as the user typed them and why a file has no
// answer.
func TestQueryMessages(t *testing.T) {
	root, env := sampleWorkspace(t)
	os.WriteFile(filepath.Join(root, "README.md"), []byte("# sample\n"), 0o644)
	kt := "src/main/kotlin/sample/"
	src, err := os.ReadFile(filepath.Join(root, kt, "Use.kt"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Count(string(src), "\n")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"def", kt + "Use.kt:999:1"}, kt + "Use.kt:999:1: position outside the document: line 999 of " + strconv.Itoa(lines) + "\n"},
		{[]string{"refs", kt + "Use.kt:" + strconv.Itoa(lines+3) + ":1"}, "line " + strconv.Itoa(lines+3) + " of " + strconv.Itoa(lines) + "\n"},
		{[]string{"outline", "README.md"}, "kast: README.md is not a source file kast indexes (languages: kotlin .kt .kts, go .go"},
		{[]string{"def", "README.md:1:1"}, "kast: README.md is not a source file kast indexes (languages: "},
		{[]string{"outline", kt + "Missing.kt"}, "kast: " + kt + "Missing.kt: no such file\n"},
		{[]string{"outline", "node_modules/lib/index.js"}, "kast: node_modules/lib/index.js is a javascript source file but kast does not index it: it is excluded"},
		{[]string{"refs", kt + "Huge.kt:1:1"}, "kast: " + kt + "Huge.kt is a kotlin source file but kast does not index it"},
	} {
		_, errOut, code := runKastErr(t, root, env, append([]string{"query"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) || strings.Contains(errOut, "storage:") {
			t.Errorf("query %v: exit %d, want 2 and %q in:\n%s", tc.args, code, tc.want, errOut)
		}
	}
}

// A warm kast index reads nothing: it says so in milliseconds, with no MB/s.
func TestIndexDurationsInMilliseconds(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "go.mod"), []byte("module example.com/m\n"), 0o644)
	os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n\nfunc F() {}\n"), 0o644)
	// The workspace's own figures: the standard library is not the subject.
	env := append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir(), "KAST_LIBRARIES=off")
	first, _, _ := runKastErr(t, dir, env, "index")
	if !regexp.MustCompile(`(?m)^  elapsed     \d+(\.\d)? (ms|s) \(\d+\.\d MB/s\)$`).MatchString(first) {
		t.Errorf("a cold run says its time and throughput:\n%s", first)
	}
	warm, _, _ := runKastErr(t, dir, env, "index")
	if !regexp.MustCompile(`(?m)^  elapsed     \d+(\.\d)? ms$`).MatchString(warm) || strings.Contains(warm, "MB/s") {
		t.Errorf("a warm run reads nothing: elapsed in ms, no MB/s:\n%s", warm)
	}
}

func TestRootHumanDuration(t *testing.T) {
	for d, want := range map[time.Duration]string{
		400 * time.Microsecond: "0.4 ms", 12 * time.Millisecond: "12 ms", 999 * time.Millisecond: "999 ms",
		3400 * time.Millisecond: "3.4 s", 125 * time.Second: "2m5s",
	} {
		if got := humanDuration(d); got != want {
			t.Errorf("humanDuration(%v) = %q, want %q", d, got, want)
		}
	}
}
