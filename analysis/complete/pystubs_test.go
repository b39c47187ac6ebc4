package complete

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/internal/wstest"
)

// typeshed's stubs declare a module's names under version and platform
// checks: after "sys." only those the project's interpreter (3.11 here,
// from its standard library's folder) has are offered, as pyright lists
// them.
func TestPythonModuleMembersLeaveOutUnreachableDeclarations(t *testing.T) {
	labels := completeInProject(t, map[string]string{
		"pyproject.toml":       "[project]\nname = \"app\"\n",
		"lib/python3.11/os.py": "sep = '/'\n",
		"stubs/sys.pyi": `import sys
from typing import TextIO

stderr: TextIO
if sys.version_info < (3, 9):
    def setcheckinterval(n: int) -> None: ...
if sys.version_info >= (3, 10):
    def setdlopenflags(n: int) -> None: ...
if sys.platform == "win32":
    from _winapi import getwindowsversion as getwindowsversion
else:
    from posix import setprofile as setprofile
`,
		"app.py": "import sys\n\nsys.set\n",
	}, "app.py", "sys.set")
	for _, want := range []string{"setdlopenflags", "setprofile"} {
		if !slices.Contains(labels, want) {
			t.Errorf("%s is missing from %v", want, labels)
		}
	}
	for _, gone := range []string{"setcheckinterval", "getwindowsversion"} {
		if slices.Contains(labels, gone) {
			t.Errorf("%s (under a failed check) is offered: %v", gone, labels)
		}
	}
}

// A project whose type checker targets an older Python than the
// interpreter (flask's and click's [tool.pyright] pythonVersion = "3.10"
// on 3.11) gets the names typeshed gives that version, as pyright does.
func TestPythonConfiguredVersionDecidesStaticChecks(t *testing.T) {
	labels := completeInProject(t, map[string]string{
		"pyproject.toml":       "[project]\nname = \"app\"\n\n[tool.mypy]\npython_version = \"3.12\"\n\n[tool.pyright]\npythonVersion = \"3.10\"  # the oldest supported\n",
		"lib/python3.11/os.py": "sep = '/'\n",
		"stubs/sys.pyi": `import sys

if sys.version_info >= (3, 11):
    def activate_stack_trampoline(backend: str) -> None: ...
if sys.version_info < (3, 11):
    def abiflags_old() -> str: ...
`,
		"app.py": "import sys\n\nsys.a\n",
	}, "app.py", "sys.a")
	if slices.Contains(labels, "activate_stack_trampoline") || !slices.Contains(labels, "abiflags_old") {
		t.Errorf("after sys. on a project configured for 3.10: %v", labels)
	}
}

// completeInProject writes files into a workspace and completes in file
// after the first occurrence of at.
func completeInProject(t *testing.T, files map[string]string, file, at string) []string {
	t.Helper()
	ar := &txtar.Archive{}
	for name, text := range files {
		ar.Files = append(ar.Files, txtar.File{Name: name, Data: []byte(text)})
	}
	ws, root := wstest.OpenArchive(t, ar)
	text := []byte(files[file])
	res := Complete(wstest.Snapshot(ws), filepath.Join(root, filepath.FromSlash(file)), strings.Index(string(text), at)+len(at), text)
	var labels []string
	for _, it := range res.Items {
		labels = append(labels, it.Label)
	}
	return labels
}
