package lsp

import (
	"path/filepath"
	"slices"
	"testing"
)

// pyObject is the part of the builtins stub kast writes that these tests
// need: object's members, str's and the compiled module sys's.
const pyObject = "class object():\n    __dict__: dict\n    def __eq__(self, value, /): ...\n    @property\n    def __class__(self): ...\n" +
	"class str():\n    def join(self, iterable, /): ...\n    def upper(self): ...\nclass bytes():\n    def hex(self): ...\n"

// Python library targets pyright answers and kast did not: os.path is the
// module os binds to the name (posixpath), a compiled module (sys) is the
// stub written from the interpreter, __name__ is the module's own.
func TestLSPPythonAliasedAndCompiledModules(t *testing.T) {
	e, dir := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "import sys\nimport posixpath as path\nfrom posix import *\n\ndef getcwd():\n    return '.'\n",
		"pybuiltins/posix.pyi":    "EX_OK: int\n_hidden: int\ndef getpid(): ...\n",
		"pystd/posixpath.py":      "def join(a, *p):\n    return a\n\n\ndef exists(p):\n    return True\n",
		"pybuiltins/builtins.pyi": pyObject,
		"pybuiltins/sys.pyi":      "modules: dict\nplatform: str\ndef exit(status=None, /): ...\n",
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/app.py":               "import os\nimport sys\n\nos.path.join('a', 'b')\nsys.modules\nos.path.\nsys.\n__name__\nos.\n",
	}, 2)
	root := filepath.ToSlash(dir)
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{3, 9, root + "/pystd/posixpath.py:0"}, // os.path.join: posixpath's
		{3, 4, root + "/pystd/posixpath.py:0"}, // os.path: the module posixpath
		{4, 6, root + "/pybuiltins/sys.pyi:0"}, // sys.modules in the compiled module's stub
		{1, 8, root + "/pybuiltins/sys.pyi:0"}, // the module in its import
	} {
		if got := e.defAt("app.py", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	// A module's own names, the names its top-level imports bind (a
	// library's plain `import sys` is its own business) and the public
	// names of what it imports whole; then what every module has.
	for _, c := range []struct {
		line, char int
		want       []string
	}{
		{5, 8, []string{"exists", "join"}},
		{6, 4, []string{"exit", "modules", "platform"}},
		{8, 3, []string{"EX_OK", "getcwd", "getpid", "path"}},
	} {
		got := pyLabels(e, "app.py", c.line, c.char)
		if i := slices.Index(got, "__annotations__"); i < 0 || !slices.Contains(got, "__name__") {
			t.Errorf("completion at %d:%d = %v, want the module attributes", c.line, c.char, got)
		} else if got = got[:i]; !slices.Equal(got, c.want) {
			t.Errorf("completion at %d:%d = %v, want %v", c.line, c.char, got, c.want)
		}
	}
}

// Members after "x." in pyright's order: public names alphabetically
// (upper case first) and __dunder__ ones last; before anything is typed,
// the type's own public then private names, then inherited public then
// private ones, then the dunders. Every class has object's members; a string literal has str's.
func TestLSPPythonMemberOrder(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "def getcwd():\n    return '.'\n",
		"pybuiltins/builtins.pyi": pyObject,
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/app.py": "class Base:\n    def beta(self): ...\n\n\nclass Thing(Base):\n    Zeta = 1\n\n    def __init__(self):\n" +
			"        self._secret = 1\n        self.alpha = 2\n\n\nt = Thing()\nt.\nt._\n\", \".\nb\"x\".\nt.__e\n",
	}, 2)
	for _, c := range []struct {
		line, char int
		want       []string
	}{
		{13, 2, []string{"Zeta", "alpha", "_secret", "beta", "__class__", "__dict__", "__eq__", "__init__"}},
		{14, 3, []string{"_secret", "__class__", "__dict__", "__eq__", "__init__"}},
		{15, 5, []string{"join", "upper", "__class__", "__dict__", "__eq__"}},
		{16, 5, []string{"hex", "__class__", "__dict__", "__eq__"}},
		{17, 5, []string{"__eq__"}},
	} {
		if got := pyLabels(e, "app.py", c.line, c.char); !slices.Equal(got, c.want) {
			t.Errorf("completion at %d:%d = %v, want %v", c.line, c.char, got, c.want)
		}
	}
}

// pyLabels is the completion's labels at a position, in the order an
// editor shows them (by sortText).
func pyLabels(e *lspEnv, name string, line, char int) []string {
	e.t.Helper()
	var list struct {
		Items []struct{ Label, SortText string } `json:"items"`
	}
	if err := e.client.Call(e.ctx, "textDocument/completion", e.at(name, line, char), &list); err != nil {
		e.t.Fatal(err)
	}
	slices.SortStableFunc(list.Items, func(a, b struct{ Label, SortText string }) int {
		switch {
		case a.SortText < b.SortText:
			return -1
		case a.SortText > b.SortText:
			return 1
		}
		return 0
	})
	var out []string
	for _, it := range list.Items {
		out = append(out, it.Label)
	}
	return out
}

// After a standard library module, the names its __all__ lists, as the
// typeshed stub pyright reads declares them: not what the module's source
// imports or keeps for itself (typing's ABCMeta and T). Public classes it
// declares are in the stubs too (warnings.WarningMessage), but not its
// metaclasses nor classes used as namespaces.
func TestLSPPythonStdlibExports(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/typing.py": "from abc import ABCMeta\n__all__ = [\n    'Any',\n    'Callable',\n]\n" +
			"T = TypeVar('T')\nclass Any: ...\nCallable = _alias()\nclass NamedTupleMeta(type): ...\n" +
			"class WarningMessage: ...\nclass io:\n    __all__ = ['IO']\nclass _Final: ...\ndef helper(): ...\n",
		"pystd/abc.py":            "class ABCMeta(type): ...\n",
		"pybuiltins/builtins.pyi": pyObject,
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/app.py":               "import typing\ntyping.\n",
	}, 2)
	got := pyLabels(e, "app.py", 1, 7)
	if i := slices.Index(got, "__annotations__"); i < 0 || !slices.Equal(got[:i], []string{"Any", "Callable", "WarningMessage"}) {
		t.Errorf("completion after typing. = %v, want Any, Callable, WarningMessage and the module attributes", got)
	}
}
