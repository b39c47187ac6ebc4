package storage

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// Giving back the value log's mapped pages loses nothing: facts written
// before (whose blobs went to the value log) read back whole after it, and
// writes after it land. The process stops mapping those pages resident.
func TestReleasedMappedPagesReadBack(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	// Definitions with long names make blobs above the value threshold.
	long := strings.Repeat("x", 200)
	facts := func(i int) *analysis.FileFacts {
		var defs []string
		for j := range 20 {
			defs = append(defs, fmt.Sprintf("D%d_%d_%s", i, j, long))
		}
		return fakeFacts(fmt.Sprintf("package p // %d", i), defs, nil)
	}
	for i := range 50 {
		mustPut(t, ix, fmt.Sprintf("/w/f%d.go", i), facts(i))
	}
	before := vlogResident(t)
	ix.ReleaseMappedPages(true)
	// A hint the kernel may decline: reported, not asserted.
	t.Logf("value log resident: %d kB before the release, %d kB after", before, vlogResident(t))
	// Readahead off and back on are advice the kernel always records
	// (VmFlags rr).
	if mapped, random := vlogRandomRead(t); mapped == 0 || random != mapped {
		t.Errorf("scattered: %d of %d value-log mappings read without readahead; want all", random, mapped)
	}
	ix.ReleaseMappedPages(false)
	if mapped, random := vlogRandomRead(t); mapped == 0 || random != 0 {
		t.Errorf("not scattered: %d of %d value-log mappings read without readahead; want none", random, mapped)
	}
	for i := 50; i < 60; i++ {
		mustPut(t, ix, fmt.Sprintf("/w/f%d.go", i), facts(i))
		if i == 55 {
			ix.ReleaseMappedPages(true)
		}
	}
	for i := range 60 {
		got, err := ix.Facts(fmt.Sprintf("/w/f%d.go", i))
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		want := facts(i)
		if len(got.Defs) != len(want.Defs) || got.Defs[19].Name != want.Defs[19].Name {
			t.Fatalf("file %d read back %d definitions, last %q", i, len(got.Defs), got.Defs[len(got.Defs)-1].Name)
		}
	}
}

// vlogResident sums the resident kB of the process's value-log mappings.
func vlogResident(t *testing.T) int {
	total := 0
	for _, m := range vlogMappings(t) {
		total += m.rssKB
	}
	return total
}

// vlogRandomRead counts the process's value-log mappings, and those whose
// VmFlags say random reads (no readahead).
func vlogRandomRead(t *testing.T) (mapped, random int) {
	maps := vlogMappings(t)
	for _, m := range maps {
		if m.random {
			random++
		}
	}
	return len(maps), random
}

// vlogMapping is one value-log mapping as /proc/self/smaps describes it.
type vlogMapping struct {
	rssKB  int
	random bool // VmFlags rr: read without readahead
}

// vlogMappings lists the process's value-log mappings. The file is Linux's
// and every Linux kernel kast runs on has it.
func vlogMappings(t *testing.T) []vlogMapping {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Fatalf("reading the process's mappings: %v", err)
	}
	var out []vlogMapping
	var cur *vlogMapping
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		switch {
		case len(fields) >= 5 && strings.Contains(fields[0], "-"):
			cur = nil
			if len(fields) >= 6 && strings.HasSuffix(fields[5], ".vlog") {
				out = append(out, vlogMapping{})
				cur = &out[len(out)-1]
			}
		case cur == nil || len(fields) < 2:
		case fields[0] == "Rss:":
			fmt.Sscan(fields[1], &cur.rssKB)
		case fields[0] == "VmFlags:":
			cur.random = slices.Contains(fields[1:], "rr")
		}
	}
	return out
}
