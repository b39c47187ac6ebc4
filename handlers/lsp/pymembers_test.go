package lsp

import (
	"path/filepath"
	"slices"
	"testing"
)

// Members of values whose type the code states or implies: a union
// annotation has its arms' members, a constructor call reached through a
// package with arguments is its class, a name imported from a module whose
// value is a string literal is a str.
func TestLSPPythonInferredMembers(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "def getcwd():\n    return '.'\n",
		"pybuiltins/builtins.pyi": pyObject + "    def decode(self, encoding='utf-8'): ...\n",
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/pkg/__init__.py":      "from .models import Request\n",
		"ws/pkg/models.py":        "class Request:\n    def prepare(self): ...\n",
		"ws/pkg/version.py":       "__version__ = \"1.2\"\n",
		"ws/app.py": "import pkg.models\nfrom pkg.version import __version__ as v\n\n\ndef f(s: str | bytes):\n    s.de\n\n\n" +
			"pkg.Request(method=\"GET\", url=\"http://a:1//v:h\").pr\nv.up\ndef g(s: str):\n    s.up\npkg.Request().pr\npkg.\n",
		"ws/aliased.py":     "from pkg.aliases import Req\n\n\ndef h(r: Req | None):\n    r.pr\n",
		"ws/pkg/aliases.py": "from typing import TypeAlias\nfrom .models import Request\n\nReq: TypeAlias = \"Request\"\n",
	}, 2)
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{5, 8, "decode"},
		{8, 51, "prepare"},
		{11, 6, "upper"},
		{12, 17, "prepare"},
		{13, 4, "models"},
		{13, 4, "Request"},
		{9, 4, "upper"},
	} {
		if got := pyLabels(e, "app.py", c.line, c.char); !slices.Contains(got, c.want) {
			t.Errorf("completion at %d:%d = %v, want %s among them", c.line, c.char, got, c.want)
		}
	}
	// A parameter annotated with a TypeAlias has the aliased class's members.
	if got := pyLabels(e, "aliased.py", 4, 8); !slices.Contains(got, "prepare") {
		t.Errorf("completion after r.pr with r: Req = %v, want prepare", got)
	}
}

// A package's attributes as pyright lists them: what `from __future__
// import` binds and the public submodules its __init__ imports from (a
// private one, _compat, only where the file imports it whole).
func TestLSPPythonPackageAttributes(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "def getcwd():\n    return '.'\n",
		"pystd/__future__.py":     "annotations = 1\n",
		"pybuiltins/builtins.pyi": pyObject,
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/pkg/__init__.py":      "from __future__ import annotations\nfrom .core import Command as Command\nfrom . import utils\nfrom ._compat import PY2 as PY2\n",
		"ws/pkg/_compat.py":       "PY2 = False\n",
		"ws/pkg/core.py":          "class Command:\n    pass\n",
		"ws/pkg/utils.py":         "def echo(): ...\n",
		"ws/pkg/_inner.py":        "X = 1\n",
		"ws/app.py":               "import pkg\n\npkg.\n",
		"ws/imports.py":           "import pkg\nimport pkg._inner\nfrom pkg._compat import PY2\npkg._\n",
	}, 2)
	got := pyLabels(e, "app.py", 2, 4)
	if i := slices.Index(got, "__annotations__"); i < 0 || !slices.Equal(got[:i], []string{"Command", "PY2", "annotations", "core", "utils"}) {
		t.Errorf("completion after pkg. = %v, want Command, PY2, annotations, core, utils, then the module attributes", got)
	}
	if got := pyLabels(e, "app.py", 2, 4); slices.Contains(got, "_compat") {
		t.Errorf("completion after pkg. lists the private submodule: %v", got)
	}
	// `import pkg._inner` binds _inner on pkg; `from pkg._compat import
	// PY2` binds PY2 alone, and pyright does not list _compat.
	got = pyLabels(e, "imports.py", 3, 5)
	if !slices.Contains(got, "_inner") || slices.Contains(got, "_compat") {
		t.Errorf("completion after pkg._ = %v, want _inner and not _compat", got)
	}
}

// A function decorated with a decorator factory's call is what the
// factory's Callable returns: `@click.group()` makes a Group.
func TestLSPPythonDecoratedFunctionMembers(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "def getcwd():\n    return '.'\n",
		"pybuiltins/builtins.pyi": pyObject,
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/pkg/__init__.py":      "",
		"ws/pkg/deco.py": "import typing as t\n\n\nclass Group:\n    def command(self): ...\n\n\n" +
			"def group(name=None) -> Group | t.Callable[[t.Callable], Group]: ...\n",
		"ws/app.py": "import pkg.deco\n\n\n@pkg.deco.group()\ndef cli():\n    pass\n\n\ncli.co\n",
		// Annotated to return None: the name is still the decorator's Group.
		"ws/run.py": "import pkg.deco\n\n\n@pkg.deco.group()\ndef run() -> None:\n    pass\n\n\nrun.co\n",
	}, 2)
	if got := pyLabels(e, "app.py", 8, 6); !slices.Equal(got, []string{"command"}) {
		t.Errorf("completion after cli.co = %v, want [command]", got)
	}
	if got := pyLabels(e, "run.py", 8, 6); !slices.Equal(got, []string{"command"}) {
		t.Errorf("completion after run.co with run annotated -> None = %v, want [command]", got)
	}
}

// An absolute import finds its module where pyright looks: the root, its
// src folder, and the folders from the importing file's up to the root.
// examples/celery/src/task_app is none of them for examples/celery's
// make_celery.py, so it gets no definition; tests/ finds its neighbour.
// `from . import auth` binds the submodule, never a same-named function
// elsewhere.
func TestLSPPythonImportRoots(t *testing.T) {
	e, dir := startLibraryLSP(t, map[string]string{
		"pystd/os.py":                                 "def getcwd():\n    return '.'\n",
		"pybuiltins/builtins.pyi":                     pyObject,
		"ws/pyproject.toml":                           "[project]\nname = \"app\"\n",
		"ws/src/app/__init__.py":                      "def create(): ...\n",
		"ws/examples/celery/src/task_app/__init__.py": "def create_app(): ...\n",
		"ws/examples/celery/make_celery.py":           "from task_app import create_app\nimport app\n\ncreate_app()\napp.create()\n",
		"ws/tests/helpers.py":                         "def helper(): ...\n",
		"ws/tests/unit/test_x.py":                     "from helpers import helper\n\nhelper()\n",
		"ws/tests/conftest.py":                        "def auth(client):\n    return client\n",
		"ws/flaskr/__init__.py":                       "def create_app():\n    from . import auth\n\n    return auth.bp\n",
		"ws/flaskr/auth.py":                           "bp = 1\n",
	}, 2)
	ws := filepath.ToSlash(filepath.Join(dir, "ws")) + "/"
	for _, c := range []struct {
		file       string
		line, char int
		want       string // the target below ws/ and its line, or "" for none
	}{
		{"examples/celery/make_celery.py", 3, 2, ""},
		{"examples/celery/make_celery.py", 4, 5, "src/app/__init__.py:0"},
		{"tests/unit/test_x.py", 2, 2, "tests/helpers.py:0"},
		{"flaskr/__init__.py", 3, 12, "flaskr/auth.py:0"}, // the submodule, not conftest's auth
	} {
		want := ""
		if c.want != "" {
			want = ws + c.want
		}
		if got := e.defAt(c.file, c.line, c.char); got != want {
			t.Errorf("definition at %s:%d:%d = %q, want %q", c.file, c.line, c.char, got, want)
		}
	}
}

// `from datetime import datetime` binds the class, not the module of the
// same name: after "datetime." come the class's members, in a lambda too.
func TestLSPPythonClassNamedLikeItsModule(t *testing.T) {
	e, _ := startLibraryLSP(t, map[string]string{
		"pystd/os.py":             "def getcwd():\n    return '.'\n",
		"pystd/datetime.py":       "class date:\n    def fold(self): ...\n\n\nclass datetime(date):\n    @classmethod\n    def fromisoformat(cls, s): ...\n",
		"pybuiltins/builtins.pyi": pyObject,
		"ws/pyproject.toml":       "[project]\nname = \"app\"\n",
		"ws/app.py":               "from datetime import datetime\n\nf(\"t\", lambda v: datetime.fromisoformat(v))\ndatetime.f\n",
	}, 2)
	for _, at := range [][2]int{{2, 26}, {3, 10}} {
		got := pyLabels(e, "app.py", at[0], at[1])
		if !slices.Contains(got, "fromisoformat") || slices.Contains(got, "date") {
			t.Errorf("completion at %d:%d = %v, want datetime's fromisoformat and not the module's date", at[0], at[1], got)
		}
	}
}
