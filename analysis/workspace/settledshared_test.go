package workspace

import (
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Settled groups of one import in several folders resolve alike: the first
// group's file is the only one read whole, a folder's single selector is
// settled too, and the answer is the one each reference resolves to alone.
func TestSettledGroupsOfOneImportShareTheirAnswer(t *testing.T) {
	files := map[string]string{
		"go.mod":       "module example.com/m\n",
		"errs/errs.go": "package errs\n\nfunc Errorf(format string) string { return format }\n",
		"one/a.go":     "package one\n\nimport \"example.com/m/errs\"\n\nfunc A() string { return errs.Errorf(\"a\") + errs.Errorf(\"b\") }\n",
		"two/b.go":     "package two\n\nimport \"example.com/m/errs\"\n\nfunc B() string { return errs.Errorf(\"c\") + errs.Errorf(\"d\") }\n",
		"three/c.go":   "package three\n\nimport \"example.com/m/errs\"\n\nfunc C() string { return errs.Errorf(\"e\") }\n",
		// Another package named errs: its folder's groups are its own.
		"other/errs/errs.go": "package errs\n\nfunc Errorf(format string) string { return format }\n",
		"four/d.go":          "package four\n\nimport \"example.com/m/other/errs\"\n\nfunc D() string { return errs.Errorf(\"f\") }\n",
	}
	got, want, read := settledAndAlone(t, files)
	if len(want) != 5 || !slices.Equal(got, want) {
		t.Errorf("references of Errorf:\n got %v\nwant %v (5)", got, want)
	}
	if len(read) != 1 || read[0] != "one" && read[0] != "two" {
		t.Errorf("folders whose files were read whole: %v; want one of one and two", read)
	}
}

// Inside the methods of a type that has a field named like the import,
// the resolver looks through that field first: those selectors are not
// settled like those in another folder's methods, and every answer is the
// one each reference resolves to alone.
func TestSettledGroupsNotInMethodsOfACarrier(t *testing.T) {
	files := map[string]string{
		"go.mod":       "module example.com/m\n",
		"errs/errs.go": "package errs\n\nfunc Errorf(format string) string { return format }\n",
		"use/c.go":     "package use\n\ntype E struct{}\n\nfunc (E) Errorf(s string) string { return s }\n\ntype C struct{ errs E }\n",
		"use/a.go":     "package use\n\nimport \"example.com/m/errs\"\n\nfunc (c C) A() string { return errs.Errorf(\"a\") + errs.Errorf(\"b\") }\n",
		"use/b.go":     "package use\n\nimport \"example.com/m/errs\"\n\nfunc (c C) B() string { return errs.Errorf(\"c\") + errs.Errorf(\"d\") }\n",
		// Methods of a type without such a field, settled first: their
		// answer is not shared with C's.
		"aother/o.go": "package aother\n\nimport \"example.com/m/errs\"\n\ntype O struct{}\n\nfunc (O) A() string { return errs.Errorf(\"e\") + errs.Errorf(\"f\") }\n",
	}
	got, want, _ := settledAndAlone(t, files)
	if len(want) < 2 || !slices.Equal(got, want) {
		t.Errorf("references of Errorf:\n got %v\nwant %v", got, want)
	}
}

// settledAndAlone indexes files and answers errs.Errorf's references as a
// cold query does (ReferencesAmongWhole, with the folders whose files it
// read whole) and reference by reference.
func settledAndAlone(t *testing.T, files map[string]string) (got, want []resolve.Reference, read []string) {
	t.Helper()
	ws, snap, def := errorfSnapshot(t, files)
	ids := snap.Resolver().ReferenceCandidates(def, true)
	var mu sync.Mutex
	whole := func(p string, refs []int32) *analysis.FileFacts {
		mu.Lock()
		read = append(read, filepath.Base(filepath.Dir(p)))
		mu.Unlock()
		return snap.wholeFile(p, refs)
	}
	got = snap.declsResolver().ReferencesAmongWhole(def, ids, true, whole, nil)
	alone := NewSession()
	alone.AddRoot(ws)
	r := alone.Snapshot(nil).Resolver()
	for _, id := range ids {
		if ref, ok := r.ResolvesTo(id, def); ok {
			want = append(want, ref)
		}
	}
	return got, want, read
}
