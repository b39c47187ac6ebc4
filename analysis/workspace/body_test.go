package workspace_test

import (
	"context"
	"path"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
)

// The name tables leave out references that resolve.BodyBindings says bind
// to what a body declares. On every resolution fixture, resolving each such
// reference against all the names (resolve.Memory lists every reference and
// definition) must give only definitions declared in a body of its file:
// otherwise leaving it out would lose a reference to something else.
func TestBodyBindingsResolveInTheirBody(t *testing.T) {
	bound := 0
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		var files []*analysis.FileFacts
		for _, f := range ar.Files {
			p := path.Join("/w", f.Name)
			if _, ok := lang.ForPath(p); !ok {
				continue
			}
			facts, err := lang.Extract(context.Background(), p, f.Data)
			if err != nil {
				t.Fatal(err)
			}
			files = append(files, facts)
		}
		r := resolve.New(resolve.NewMemory(files...))
		for _, f := range files {
			_, refs := resolve.BodyBindings(f)
			for i, inBody := range refs {
				if !inBody {
					continue
				}
				bound++
				ref := f.Refs[i]
				got := r.Resolve(resolve.RefID{Path: f.Path, Index: int32(i)})
				if len(got) == 0 {
					t.Errorf("%s: %s at %d binds in a body but resolves to nothing", f.Path, ref.Name, ref.Span.Start)
				}
				for _, c := range got {
					if c.Def.Path != f.Path || !resolve.DeclaredInBody(f, c.Def.Index) {
						t.Errorf("%s: %s at %d binds in a body but resolves to %+v", f.Path, ref.Name, ref.Span.Start, c)
					}
				}
			}
		}
	})
	if bound < 100 {
		t.Errorf("only %d references bind in a body across the fixtures: the check says little", bound)
	}
	t.Logf("%d references bind in a body", bound)
}
