package storage

import (
	"fmt"
	"testing"
	"time"
)

// A name's postings are read without badger's prefetching, which copies
// each value on a goroutine of its own (see postingScan.each): reading the
// definitions of a name declared in many files allocates about what their
// decoding needs, not a copy and a goroutine per file on top.
func TestPostingsReadWithoutPrefetching(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	const files = 400
	b := ix.NewBatch()
	for i := range files {
		f := fakeFacts(fmt.Sprintf("package p // %d", i), []string{"Shared", fmt.Sprintf("Own%d", i)}, nil)
		if err := b.PutFile(fmt.Sprintf("/p/f%03d.go", i), time.Unix(1700000000, 0), f); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.DefsNamed("Shared")
	if err != nil || len(hits) != files {
		t.Fatalf("DefsNamed(Shared): %d hits, %v", len(hits), err)
	}
	allocs := testing.AllocsPerRun(10, func() {
		if _, err := ix.DefsNamed("Shared"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("%.1f allocations per posting", allocs/files)
	if allocs/files > 0.5 {
		t.Errorf("%.1f allocations per posting read, want at most 0.5 (prefetching: 1.3)", allocs/files)
	}
}
