package lsp

import (
	"path/filepath"
	"testing"
)

// Python modules are definition targets (their file's start), a package's
// stub (__init__.pyi) before its source, a stub's declaration before the
// source's, a name a package's __init__
// passes on from an absolute import is followed into the module declaring
// it, and a function's @overload signatures give way to its
// implementation, whatever typing is imported as. Built-in names resolve
// into the interpreter's builtins.pyi.
func TestLSPPythonModulesIntoLibraries(t *testing.T) {
	site := "ws/.venv/lib/python3.99/site-packages/"
	e, dir := startLibraryLSP(t, map[string]string{
		"pystd/os.py":               "def getcwd():\n    return '.'\n",
		"pybuiltins/builtins.pyi":   "class str():\n    def upper(self): ...\ndef len(obj, /): ...\n",
		"ws/.venv/pyvenv.cfg":       "home = /nonexistent/bin\n",
		site + "typed/__init__.py":  "from _typed.core import run\n",
		site + "typed/__init__.pyi": "from _typed.core import run as run\n",
		site + "_typed/__init__.py": "",
		site + "_typed/core.py": "from typing import overload\n\n@overload\ndef run(x: int) -> int: ...\n@t.overload\n" +
			"def run(x: str) -> str: ...\ndef run(x):\n    return x\ndef helper(x):\n    return x\n",
		site + "_typed/core.pyi": "def helper(x: int) -> int: ...\n",
		// A vendored copy inside a package is not the standard library's os.
		site + "vend/__init__.py":                "",
		site + "vend/_vendor/__init__.py":        "",
		site + "vend/_vendor/os.py":              "def getcwd():\n    return ''\n",
		site + "vend/_vendor/_typed/__init__.py": "",
		site + "vend/_vendor/_typed/core.py":     "def run(x):\n    return x\n",
		site + "typed-1.0.dist-info/RECORD":      "typed/__init__.py,,\n_typed/core.py,,\n",
		"ws/pyproject.toml":                      "[project]\nname = \"app\"\n",
		"ws/pkg/__init__.py":                     "",
		"ws/pkg/errors.py":                       "class Oops(Exception):\n    pass\n",
		"ws/pkg/use.py":                          "from .errors import Oops\n\nraise Oops()\n",
		site + "vend/errors.py":                  "class Oops(Exception):\n    pass\n",
		"ws/app.py": "import os\nimport typed\nfrom _typed import core\n\nos.getcwd()\ntyped.run(1)\ncore.run('a')\n" +
			"import _typed\n_typed.core.run(2)\n" +
			"def shout(s: str):\n    return len(s.upper())\n" +
			"from _typed.core import run as run2\ncore.helper(1)\n",
	}, 5)
	root := filepath.ToSlash(dir)
	sp := root + "/" + site
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{0, 8, root + "/pystd/os.py:0"},     // the module in its import
		{1, 8, sp + "typed/__init__.pyi:0"}, // the stub before the source
		{4, 1, root + "/pystd/os.py:0"},     // os in os.getcwd()
		{5, 2, sp + "typed/__init__.pyi:0"},
		{6, 1, sp + "_typed/core.pyi:0"},              // a submodule imported by name, its stub first
		{6, 6, sp + "_typed/core.py:6"},               // the implementation, not an overload
		{5, 7, sp + "_typed/core.py:6"},               // passed on by typed/__init__ from an absolute import
		{8, 13, sp + "_typed/core.py:6"},              // through a dotted module qualifier
		{9, 13, root + "/pybuiltins/builtins.pyi:0"},  // a built-in type
		{10, 12, root + "/pybuiltins/builtins.pyi:2"}, // a built-in function
		{10, 18, root + "/pybuiltins/builtins.pyi:1"}, // a built-in type's method
		{11, 24, sp + "_typed/core.py:6"},             // not the copy vendored inside a package
		{12, 6, sp + "_typed/core.pyi:0"},             // the stub's declaration, not the source's
	} {
		if got := e.defAt("app.py", c.line, c.char); got != c.want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, c.want)
		}
	}
	// A relative import is the module beside the file, not any errors.py.
	if got, want := e.defAt("pkg/use.py", 2, 7), root+"/ws/pkg/errors.py:0"; got != want {
		t.Errorf("definition of Oops = %q, want %q", got, want)
	}
}
