package resolve_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/storage"
)

// hashOnly is a workspace that knows its files' content hashes without
// their facts, and counts the facts asked of it.
type hashOnly struct {
	*resolve.Memory
	hashes  map[string]string
	decoded int
}

func (w *hashOnly) File(path string) *analysis.FileFacts {
	w.decoded++
	return w.Memory.File(path)
}

func (w *hashOnly) ContentHash(path string) string { return w.hashes[path] }

// A file's build constraint is read without decoding its facts: a
// completion in syscall filters members by the constraints of hundreds of
// files, and decoding each for its hash was most of that completion's CPU.
func TestBuildConstraintsNeedNoFacts(t *testing.T) {
	dir := t.TempDir()
	from := filepath.Join(dir, "use.go")
	other := filepath.Join(dir, "other.go")
	ws := &hashOnly{hashes: map[string]string{}}
	var files []*analysis.FileFacts
	for path, src := range map[string]string{from: "package p\n", other: "//go:build windows\n\npackage p\n"} {
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		f := &analysis.FileFacts{Path: path, Lang: "go", Package: "p", Hash: storage.HashContent([]byte(src))}
		files = append(files, f)
		ws.hashes[path] = f.Hash
	}
	ws.Memory = resolve.NewMemory(files...)
	r := resolve.New(ws)
	if r.GoFileBuilds(from, other) {
		t.Error("a windows-only file builds with a linux one")
	}
	if !r.GoFileBuilds(from, from) {
		t.Error("a file without constraints does not build")
	}
	if ws.decoded != 0 {
		t.Errorf("%d files' facts decoded to read build constraints; want none", ws.decoded)
	}
}
