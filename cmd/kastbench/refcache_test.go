package main

import (
	"slices"
	"testing"
)

// The reference server's answers come back for the same samples, and
// not for samples that differ in a position or a file's text.
func TestRefAnswersCache(t *testing.T) {
	dir := t.TempDir()
	defs := []sample{{Path: "/p/a.py", Line: 3, Col: 4, Name: "x", Text: "x = 1\n"}}
	members := []sample{{Path: "/p/b.py", Line: 1, Col: 2, Name: "split", Text: "s.split\n"}}
	file := refCacheFile(dir, "pyright-langserver", "/p", defs, members)
	if _, _, ok := loadRefAnswers(file, 1, 1); ok {
		t.Fatal("answers before any were kept")
	}
	want := []target{{path: "/lib/x.pyi", line: 7, col: 9}}
	saveRefAnswers(file, want, [][]string{{"split", "splitlines"}})
	got, items, ok := loadRefAnswers(file, 1, 1)
	if !ok || !slices.Equal(got, want) || len(items) != 1 || !slices.Equal(items[0], []string{"split", "splitlines"}) {
		t.Errorf("kept answers: %v %v %v", got, items, ok)
	}
	edited := slices.Clone(defs)
	edited[0].Text = "x = 2\n"
	if refCacheFile(dir, "pyright-langserver", "/p", edited, members) == file {
		t.Error("an edited file keeps the answers of the old text")
	}
	if refCacheFile("", "pyright-langserver", "/p", defs, members) != "" {
		t.Error("a cache file without KASTBENCH_REFCACHE")
	}
}
