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
	ix.ReleaseMappedPages()
	// A hint the kernel may decline: reported, not asserted.
	t.Logf("value log resident: %d kB before the release, %d kB after", before, vlogResident(t))
	// No readahead is an advice the kernel always records (VmFlags rr).
	if mapped, random := vlogRandomRead(t); mapped == 0 || random != mapped {
		t.Errorf("%d of %d value-log mappings read without readahead; want all", random, mapped)
	}
	for i := 50; i < 60; i++ {
		mustPut(t, ix, fmt.Sprintf("/w/f%d.go", i), facts(i))
		if i == 55 {
			ix.ReleaseMappedPages()
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
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	total, in := 0, false
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 6 && strings.Contains(fields[0], "-") {
			in = strings.HasSuffix(fields[5], ".vlog")
		} else if in && len(fields) >= 2 && fields[0] == "Rss:" {
			var kb int
			fmt.Sscan(fields[1], &kb)
			total += kb
		}
	}
	return total
}

// vlogRandomRead counts the process's value-log mappings, and those whose
// VmFlags say random reads (no readahead).
func vlogRandomRead(t *testing.T) (mapped, random int) {
	data, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip("no /proc/self/smaps")
	}
	in := false
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) >= 6 && strings.Contains(fields[0], "-") {
			if in = strings.HasSuffix(fields[5], ".vlog"); in {
				mapped++
			}
		} else if in && len(fields) >= 1 && fields[0] == "VmFlags:" && slices.Contains(fields[1:], "rr") {
			random++
		}
	}
	return mapped, random
}
