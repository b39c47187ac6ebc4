package workspace_test

import (
	"path/filepath"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// A workspace opened on GOROOT/src (go.mod: module std) maps the standard
// import paths to its own folders, as the std library does for other
// modules: it is not indexed again as a library (libraries.Discover), and
// the import "math/rand" is math/rand, not another folder ending in rand.
func TestStdWorkspaceServesStandardImportPaths(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(`
-- go.mod --
module std

go 1.26
-- math/rand/rand.go --
package rand

func Int() int { return 4 }
-- internal/x/math/rand/rand.go --
package rand

func Int() int { return 5 }
-- cmd/go.mod --
module cmd

go 1.26
-- cmd/internal/obj/obj.go --
package obj
`)))
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	snap := sess.Snapshot(nil)
	for importPath, want := range map[string]string{
		"math/rand":        filepath.Join(root, "math", "rand"),
		"cmd/internal/obj": filepath.Join(root, "cmd", "internal", "obj"),
		"fmt":              filepath.Join(root, "fmt"),
	} {
		if dirs, ok := snap.GoPackageDirs(importPath); !ok || !slices.Equal(dirs, []string{want}) {
			t.Errorf("GoPackageDirs(%q) = %v, %v; want [%s]", importPath, dirs, ok, want)
		}
	}
	if dirs, ok := snap.GoPackageDirs("golang.org/x/net/idna"); ok {
		t.Errorf("a vendored import path is not the standard library's: %v", dirs)
	}
}
