package resolve_test

import (
	"testing"

	"github.com/kast-dev/kast/analysis/resolve"
)

// A module attribute that the package binds by a relative import of a name
// another of its modules imports as a module is that module:
// requests.packages.chardet, where packages.py has `from .compat import
// chardet` and compat.py `import chardet` (under TYPE_CHECKING, so the
// run-time assignment in the else branch does not count).
func TestPythonModuleBoundThroughARelativeImport(t *testing.T) {
	files := map[string]string{
		"src/requests/__init__.py": "from . import packages\n",
		"src/requests/packages.py": "from .compat import chardet\n",
		"src/requests/compat.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    import chardet\nelse:\n" +
			"    chardet = None\n",
		"lib/chardet/__init__.py": "def detect(b):\n    return b\n",
		"tests/test_packages.py":  "import requests\n\n\ndef test_chardet():\n    requests.packages.chardet\n",
	}
	ws := workspace(t, files)
	r := resolve.New(ws)
	src := files["tests/test_packages.py"]
	got, ok := r.ModuleAt("tests/test_packages.py", offsetOf(t, src, "chardet", 1, 1))
	if want := "lib/chardet/__init__.py"; !ok || got != want {
		t.Errorf("module of requests.packages.chardet = %q, %v; want %q", got, ok, want)
	}
}
