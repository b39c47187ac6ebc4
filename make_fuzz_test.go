package kast_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestMakeFuzzListsEveryTarget: `make fuzz` runs the targets the Makefile
// lists, one `go test -fuzz` each; a fuzz function missing from the list
// would never be fuzzed, and a listed one that is gone would fail the run.
func TestMakeFuzzListsEveryTarget(t *testing.T) {
	mk, err := os.ReadFile("Makefile")
	if err != nil {
		t.Fatal(err)
	}
	block := regexp.MustCompile(`(?m)^FUZZ_TARGETS :=((?:.*\\\n)*.*)$`).FindSubmatch(mk)
	if block == nil {
		t.Fatal("the Makefile has no FUZZ_TARGETS")
	}
	listed := strings.Fields(strings.ReplaceAll(string(block[1]), "\\", " "))

	var found []string
	fuzzFunc := regexp.MustCompile(`(?m)^func (Fuzz\w+)\(\w+ \*testing\.F\)`)
	err = filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) && path != "." {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, m := range fuzzFunc.FindAllSubmatch(src, -1) {
			found = append(found, filepath.ToSlash(filepath.Dir(path))+":"+string(m[1]))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	slices.Sort(listed)
	slices.Sort(found)
	if !slices.Equal(listed, found) {
		t.Errorf("FUZZ_TARGETS lists %q;\nthe fuzz functions are %q", listed, found)
	}
}
