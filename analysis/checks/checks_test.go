package checks

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for rel, text := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func messages(diags []Diagnostic) string {
	var b strings.Builder
	for _, d := range diags {
		b.WriteString(filepath.Base(d.Path) + ":" + strconv.Itoa(d.Line) + ": " + d.Message + " [" + d.Source + "]\n")
	}
	return b.String()
}

// Go is type-checked as gopls does: a type error, an unresolved name and a
// call with the wrong number of arguments, each on its line; unsaved text is
// checked as given.
func TestGoTypeErrors(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command")
	}
	root := writeFiles(t, map[string]string{
		"go.mod": "module example.com/m\n\ngo 1.22\n",
		"a.go": "package m\n\nfunc f(a int) int { return a }\n\n" +
			"func g() {\n\tvar s int = \"text\"\n\t_ = s\n\tmissing()\n\t_ = f(1, 2)\n}\n",
		"b.go": "package m\n\nfunc h() int { return f(3) }\n",
	})
	a, b := filepath.Join(root, "a.go"), filepath.Join(root, "b.go")
	res := Run(context.Background(), Request{Root: root, Files: []string{a, b}, Budget: time.Minute})
	got := messages(res.Diagnostics)
	for _, want := range []string{"a.go:6: cannot use \"text\"", "a.go:8: undefined: missing", "a.go:9: too many arguments"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s", want, got)
		}
	}
	if strings.Contains(got, "b.go") || len(res.Ran) != 1 || res.Ran[0] != "go/types" {
		t.Errorf("b.go compiles: %s (ran %v, not run %v)", got, res.Ran, res.NotRun)
	}

	// An unsaved b.go that breaks.
	res = Run(context.Background(), Request{Root: root, Files: []string{b}, Budget: time.Minute,
		Overlay: map[string][]byte{b: []byte("package m\n\nfunc h() string { return f(3) }\n")}})
	if got := messages(res.Diagnostics); !strings.Contains(got, "b.go:3: cannot use f(3)") {
		t.Errorf("the unsaved text: %s", got)
	}
}

// The toolchains' own formats, as they print them.
func TestToolOutputParsers(t *testing.T) {
	tsc := parseTSC("/p", []byte("src/a.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.\n"+
		"src/b.ts(1,1): error TS2304: Cannot find name 'nope'.\n  continued\n"))
	if len(tsc) != 2 || tsc[0].Path != "/p/src/a.ts" || tsc[0].Line != 3 || tsc[0].Column != 7 || tsc[0].Code != "TS2322" ||
		tsc[1].Message != "Cannot find name 'nope'.\ncontinued" {
		t.Errorf("tsc: %+v", tsc)
	}
	py, err := parsePyright([]byte(`{"generalDiagnostics":[{"file":"/p/a.py","severity":"error","message":"\"x\" is not defined",` +
		`"range":{"start":{"line":2,"character":4},"end":{"line":2,"character":5}},"rule":"reportUndefinedVariable"},` +
		`{"file":"/p/a.py","severity":"information","message":"note","range":{"start":{"line":0,"character":0},"end":{"line":0,"character":1}}}]}`))
	if err != nil || len(py) != 1 || py[0].Line != 3 || py[0].Column != 5 || py[0].Code != "reportUndefinedVariable" {
		t.Errorf("pyright: %+v %v", py, err)
	}
	kt := parseKotlinc([]byte("/p/A.kt:4:22: error: unresolved reference: missingFn\nwarning: something global\n"))
	if len(kt) != 1 || kt[0].Path != "/p/A.kt" || kt[0].Line != 4 || kt[0].Column != 22 || kt[0].Message != "unresolved reference: missingFn" {
		t.Errorf("kotlinc: %+v", kt)
	}
}

// A toolchain that is missing says so instead of passing silently.
func TestMissingToolchainSaysSo(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	root := writeFiles(t, map[string]string{"a.py": "x = y\n", "A.kt": "fun a() = b()\n"})
	res := Run(context.Background(), Request{Root: root, Files: []string{filepath.Join(root, "a.py"), filepath.Join(root, "A.kt")}})
	if len(res.Ran) != 0 || !strings.Contains(res.NotRun["pyright"], "not installed") || !strings.Contains(res.NotRun["kotlinc"], "not installed") {
		t.Errorf("ran %v, not run %v", res.Ran, res.NotRun)
	}
}

// toolchainsOnPath puts the toolchains .ci/run installs (testdata/toolchains)
// on PATH, or skips when they are not installed (CI fails instead).
func toolchainsOnPath(t *testing.T, tool string) {
	t.Helper()
	bin, _ := filepath.Abs(filepath.Join("..", "..", "testdata", "toolchains", "node_modules", ".bin"))
	if _, err := os.Stat(filepath.Join(bin, tool)); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s is not installed in testdata/toolchains: .ci/run runs npm ci there", tool)
		}
		t.Skipf("%s is not installed: run npm ci in testdata/toolchains", tool)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// TypeScript is checked by tsc, in the file's tsconfig project.
func TestTypeScriptTypeErrors(t *testing.T) {
	toolchainsOnPath(t, "tsc")
	root := writeFiles(t, map[string]string{
		"tsconfig.json": `{"compilerOptions":{"strict":true,"noEmit":true,"target":"es2020"},"include":["src"]}`,
		"src/a.ts":      "export function f(a: number): number { return a }\n\nconst s: number = \"text\"\nmissing()\nf(1, 2)\n",
		"src/b.ts":      "import { f } from \"./a\"\n\nexport const y = f(3)\n",
	})
	res := Run(context.Background(), Request{Root: root, Files: []string{filepath.Join(root, "src/a.ts"), filepath.Join(root, "src/b.ts")}, Budget: time.Minute})
	got := messages(res.Diagnostics)
	for _, want := range []string{"a.ts:3: Type 'string' is not assignable to type 'number'", "a.ts:4: Cannot find name 'missing'", "a.ts:5: Expected 1 arguments, but got 2"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s (not run: %v)", want, got, res.NotRun)
		}
	}
	if strings.Contains(got, "b.ts") {
		t.Errorf("b.ts compiles: %s", got)
	}
}

// Python is checked by pyright.
func TestPythonTypeErrors(t *testing.T) {
	toolchainsOnPath(t, "pyright")
	root := writeFiles(t, map[string]string{
		"a.py": "def f(a: int) -> int:\n    return a\n\n\nx: int = \"text\"\nmissing()\nf(1, 2)\n",
	})
	res := Run(context.Background(), Request{Root: root, Files: []string{filepath.Join(root, "a.py")}, Budget: time.Minute})
	got := messages(res.Diagnostics)
	for _, want := range []string{"a.py:5: Type \"Literal['text']\" is not assignable", "a.py:6: \"missing\" is not defined", "a.py:7: Expected 1 positional argument"} {
		if !strings.Contains(got, want) {
			t.Errorf("missing %q in:\n%s (not run: %v)", want, got, res.NotRun)
		}
	}
}
