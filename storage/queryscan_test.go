package storage

import (
	"fmt"
	"testing"
	"time"
)

// Reading a name's postings costs no goroutine or copy per posting:
// badger's value prefetching started one and copied each row, and a query
// then waited for those goroutines behind whatever else held the cores.
func TestPostingScanAllocatesPerResultOnly(t *testing.T) {
	ix, _ := openTemp(t, Options{})
	const files = 300
	b := ix.NewBatch()
	for i := range files {
		if err := b.PutFile(fmt.Sprintf("/w/f%03d.go", i), time.Unix(1, 0), fakeFacts(fmt.Sprintf("f%d", i), []string{"Shared"}, []string{"call"})); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Flush(); err != nil {
		t.Fatal(err)
	}
	hits, err := ix.DefsNamed("Shared")
	if err != nil || len(hits) != files {
		t.Fatalf("DefsNamed(Shared) = %d hits, %v; want %d", len(hits), err, files)
	}
	allocs := testing.AllocsPerRun(5, func() {
		if _, err := ix.DefsNamed("Shared"); err != nil {
			t.Fatal(err)
		}
	})
	t.Logf("DefsNamed over %d files: %.0f allocations", files, allocs)
	if allocs > files {
		t.Errorf("DefsNamed over %d files allocated %.0f times: more than once per posting", files, allocs)
	}
}
