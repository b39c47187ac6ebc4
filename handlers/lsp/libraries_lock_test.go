package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/host"
)

// Two kast instances (hosts) share the library cache: the second meets the
// library indexes held by the first and uses them as they are (in place
// once the first sealed them read-only, otherwise from a private copy)
// instead of rebuilding them, answers from them, and leaves no copy behind
// when it closes.
func TestLSPSecondHostReusesLockedLibraryIndex(t *testing.T) {
	first, dir := startLibraryLSP(t, libraryFiles, 2)
	want := filepath.ToSlash(dir) + "/goroot/src/fmt/errors.go:3"
	if got := first.defAt("main.go", 11, 18); got != want {
		t.Fatalf("first: definition of fmt.Errorf = %q, want %q", got, want)
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	copies := func() []string {
		c, _ := filepath.Glob(filepath.Join(cache, "*", "libs", "go", "std@*.copy-*"))
		return c
	}
	// Runs after the second host closes (cleanups run last first).
	t.Cleanup(func() {
		if c := copies(); len(c) != 0 {
			t.Errorf("copies left after close: %v", c)
		}
	})

	second := startLibraryLSPOn(t, dir, 2)
	byName := map[string]host.LibraryStatus{}
	for _, l := range second.waitLibraries(2).Indexed {
		byName[strings.Split(l.Library, "@")[0]] = l
	}
	for _, name := range []string{"std", "example.com/Dep"} {
		if l := byName[name]; !l.Reused || !l.Complete || l.Files == 0 {
			t.Errorf("second host: %s = %+v, want the first host's index reused", name, l)
		}
	}
	if got := second.defAt("main.go", 11, 18); got != want {
		t.Errorf("second: definition of fmt.Errorf = %q, want %q", got, want)
	}
	if got := second.defAt("main.go", 10, 8); !strings.HasSuffix(got, "/dep.go:9") {
		t.Errorf("second: definition of c.Send = %q", got)
	}
	// The first host sealed its complete std index read-only
	// (storage.Index.Seal): the second shares it in place, without a copy.
	if len(copies()) != 0 {
		t.Errorf("copies of the sealed std index while open: %v, want none", copies())
	}
}
