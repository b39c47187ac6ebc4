package indexer

import (
	"testing"

	"github.com/kast-dev/kast/storage/scan"
)

// A refresh indexes its files smallest first, with the few files over
// bigFile amid the others rather than last.
func TestFilesInQueryOrder(t *testing.T) {
	sizes := []int64{bigFile + 10, 5, 300, bigFile * 4, 40, 7, bigFile, 1, bigFile + 1, 90}
	var todo []job
	for _, s := range sizes {
		todo = append(todo, job{file: scan.File{Size: s}})
	}
	got := inQueryOrder(todo)
	var order []int64
	for _, j := range got {
		order = append(order, j.file.Size)
	}
	want := []int64{1, 5, 7, bigFile + 1, bigFile + 10, bigFile * 4, 40, 90, 300, bigFile}
	if len(order) != len(want) {
		t.Fatalf("order = %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order = %v, want %v", order, want)
		}
	}
	if got := inQueryOrder(nil); len(got) != 0 {
		t.Errorf("no files: %v", got)
	}
	one := inQueryOrder([]job{{file: scan.File{Size: bigFile * 2}}})
	if len(one) != 1 || one[0].file.Size != bigFile*2 {
		t.Errorf("one big file: %v", one)
	}
}
