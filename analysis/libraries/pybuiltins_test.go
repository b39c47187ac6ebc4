package libraries

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/lang"
)

// The interpreter's built-in names become a stub that kast's own Python
// extraction reads: classes with their methods, and functions. It is
// written once per version and then reused.
func TestPythonBuiltinsStub(t *testing.T) {
	needPython3(t)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := pythonBuiltins(context.Background(), "python3", "3.test")
	if dir == "" {
		t.Fatal("no builtins stub written")
	}
	stub := filepath.Join(dir, "builtins.pyi")
	src, err := os.ReadFile(stub)
	if err != nil {
		t.Fatal(err)
	}
	facts, err := lang.Extract(context.Background(), stub, src)
	if err != nil {
		t.Fatal(err)
	}
	top, members := map[string]bool{}, map[string]bool{}
	for _, d := range facts.Defs {
		if d.Container < 0 {
			top[d.Name] = true
		} else if facts.Defs[d.Container].Name == "str" {
			members[d.Name] = true
		}
	}
	for _, name := range []string{"str", "len", "ValueError", "range", "isinstance"} {
		if !top[name] {
			t.Errorf("the stub declares no top-level %s", name)
		}
	}
	if !members["startswith"] || !members["upper"] {
		t.Errorf("str's methods missing: %v", members)
	}
	// What typeshed knows and the interpreter does not: return types.
	for _, want := range []string{"    def split(self, /, sep=None, maxsplit=-1) -> list[str]:", "\nimport _io\n", ") -> _io.TextIOWrapper:"} {
		if !strings.Contains(string(src), want) {
			t.Errorf("the stub lacks %q", want)
		}
	}
	// The compiled modules beside it: sys has no source.
	// Its containers have the element types typeshed gives them.
	if sys, err := os.ReadFile(filepath.Join(dir, "sys.pyi")); err != nil || !strings.Contains(string(sys), "\nmodules: dict[str, types.ModuleType]\n") ||
		!strings.Contains(string(sys), "\nargv: list[str]\n") || !strings.Contains(string(sys), "\nimport types\n") {
		t.Errorf("sys.pyi: %v, want modules and argv declared with their element types, and types imported:\n%.300s", err, sys)
	}
	// sys.version_info's class is no attribute of sys: written under a
	// private name, with the fields as properties.
	if sys, _ := os.ReadFile(filepath.Join(dir, "sys.pyi")); !strings.Contains(string(sys), "\nversion_info: _version_info\n") ||
		!strings.Contains(string(sys), "\nclass _version_info(tuple):\n") || !strings.Contains(string(sys), "    def major(self)") {
		t.Errorf("sys.pyi lacks version_info's class _version_info with major:\n%.300s", sys)
	}
	// _io calls itself io, but its classes' bases are its own.
	if io, err := os.ReadFile(filepath.Join(dir, "_io.pyi")); err != nil || !strings.Contains(string(io), "\nclass TextIOWrapper(_TextIOBase):\n") {
		t.Errorf("_io.pyi: %v, want TextIOWrapper derived from _TextIOBase", err)
	}
	// re is Python, but its Pattern and Match are compiled: introspected
	// too, its API only.
	if re, err := os.ReadFile(filepath.Join(dir, "re.pyi")); err != nil || !strings.Contains(string(re), "\nclass Match():\n") ||
		!strings.Contains(string(re), "\ndef compile(pattern, flags=0) -> Pattern:") || strings.Contains(string(re), "def _compile") {
		t.Errorf("re.pyi: %v, want Match, compile returning a Pattern, and no private helpers", err)
	}
	// Asked for one module, the script writes that one alone.
	if only := runStubs(context.Background(), "python3", time.Minute, "builtins"); len(only) != 1 || only["builtins"] == "" {
		t.Errorf("stubs of builtins alone: %d modules", len(only))
	}
	// Reused: the same folder, the file not rewritten.
	before, _ := os.Stat(stub)
	if again := pythonBuiltins(context.Background(), "python3", "3.test"); again != dir {
		t.Errorf("second call: %q, want %q", again, dir)
	}
	if after, _ := os.Stat(stub); !after.ModTime().Equal(before.ModTime()) {
		t.Error("the stub was rewritten")
	}
}

// An interpreter that does not run gives no stub, not an error.
func TestPythonBuiltinsBrokenInterpreter(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	if dir := pythonBuiltins(context.Background(), filepath.Join(t.TempDir(), "python3"), "3.test"); dir != "" {
		t.Errorf("got %q from a missing interpreter", dir)
	}
}

// A virtualenv's interpreter writes the extension modules of the
// interpreter it was made from (its own platstdlib has no lib-dynload):
// _socket's socket with connect, which socket.socket derives from.
func TestPythonBuiltinsFromVirtualenv(t *testing.T) {
	needPython3(t)
	venv := filepath.Join(t.TempDir(), "venv")
	if out, err := exec.Command("python3", "-m", "venv", "--without-pip", venv).CombinedOutput(); err != nil {
		skipUnlessCI(t, "no virtualenv: %v %s", err, out)
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	dir := pythonBuiltins(context.Background(), filepath.Join(venv, "bin", "python3"), "3.venv")
	if dir == "" {
		t.Fatal("no stubs written")
	}
	src, err := os.ReadFile(filepath.Join(dir, "_socket.pyi"))
	if err != nil || !strings.Contains(string(src), "\nclass socket(") || !strings.Contains(string(src), "    def connect(") {
		t.Errorf("_socket.pyi: %v, want class socket with connect", err)
	}
}

// A project without a virtualenv uses the python3 on PATH, often a pyenv
// shim: a shell script that, on a loaded machine, took 9 s to start the
// interpreter, past the go command's 10 s bound with the script's own
// work, and the standard library was skipped. The shim is run once and
// waited for; the built-in stubs are asked of the interpreter it started.
func TestDiscoverPythonThroughASlowLauncher(t *testing.T) {
	if testing.Short() {
		t.Skip("waits for a launcher that takes 11 s")
	}
	needPython3(t)
	real, err := exec.Command("python3", "-c", "import sys; print(sys.executable)").Output()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	runs := filepath.Join(dir, "runs")
	shim := "#!/bin/sh\necho run >> " + runs + "\nsleep 11\nexec " + strings.TrimSpace(string(real)) + " \"$@\"\n"
	write(t, dir, map[string]string{"bin/python3": shim, "ws/pyproject.toml": "[project]\nname = \"x\"\n"})
	if err := os.Chmod(filepath.Join(dir, "bin", "python3"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", filepath.Join(dir, "bin")+string(os.PathListSeparator)+"/usr/bin:/bin")
	t.Setenv("VIRTUAL_ENV", "")
	t.Setenv("XDG_CACHE_HOME", filepath.Join(dir, "cache"))
	f := Discover(context.Background(), filepath.Join(dir, "ws"), Options{})
	modules := map[string]bool{}
	for _, l := range f.Libraries {
		modules[l.Module] = true
	}
	// The built-in names are kast's stubs, or typeshed's when a tool in
	// the interpreter's site-packages ships them.
	if !modules["stdlib"] || !modules["builtins"] && !modules["typeshed"] {
		t.Errorf("libraries %+v, skipped %+v", f.Libraries, f.Skipped)
	}
	if b, _ := os.ReadFile(runs); strings.Count(string(b), "run") != 1 {
		t.Errorf("the launcher ran %d times, want once", strings.Count(string(b), "run"))
	}
}

// needPython3 skips a test that runs the interpreter where python3 is not
// on PATH, but fails it in CI, which always has one.
func needPython3(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("python3"); err != nil {
		skipUnlessCI(t, "no python3 on PATH")
	}
}

// skipUnlessCI skips the test, or fails it in CI (CI set), where what it
// lacks is installed.
func skipUnlessCI(t *testing.T, format string, args ...any) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf(format, args...)
	}
	t.Skipf(format, args...)
}
