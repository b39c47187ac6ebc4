package indexer

import (
	"fmt"
	"testing"

	"github.com/kast-dev/kast/storage/scan"
)

// A refresh indexes its files smallest first, with the few files over
// bigFile spread over the middle half of the others rather than last or
// side by side.
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
	want := []int64{1, bigFile + 1, 5, bigFile + 10, 7, bigFile * 4, 40, 90, 300, bigFile}
	if len(order) != len(want) {
		t.Fatalf("order = %v, want %v", order, want)
	}
	for i := range want {
		if order[i] != want[i] {
			t.Fatalf("order = %v, want %v", order, want)
		}
	}
	var many []job
	for i := range 100 {
		many = append(many, job{file: scan.File{Size: int64(100 - i)}})
	}
	for i := range 4 {
		many = append(many, job{file: scan.File{Size: bigFile * int64(i+2)}})
	}
	var bigAt []int
	for i, j := range inQueryOrder(many) {
		if j.file.Size > bigFile {
			bigAt = append(bigAt, i)
		}
	}
	if want := []int{25, 38, 52, 65}; fmt.Sprint(bigAt) != fmt.Sprint(want) {
		t.Errorf("big files at %v of 104, want %v", bigAt, want)
	}
	if got := inQueryOrder(nil); len(got) != 0 {
		t.Errorf("no files: %v", got)
	}
	one := inQueryOrder([]job{{file: scan.File{Size: bigFile * 2}}})
	if len(one) != 1 || one[0].file.Size != bigFile*2 {
		t.Errorf("one big file: %v", one)
	}
}

// The folders a Priority wants go first, whether wanted before the run or
// while it hands out files; every file is handed out once.
func TestPriorityTakesWantedFoldersFirst(t *testing.T) {
	var todo []job
	for _, p := range []string{"/w/a/1.go", "/w/b/1.go", "/w/a/2.go", "/w/c/1.go", "/w/b/2.go", "/w/c/2.go", "/w/c/d/1.go"} {
		todo = append(todo, job{file: scan.File{Path: p}})
	}
	var prio Priority
	prio.Want("/w/c")
	q := newQueue(todo, &prio)
	var got []string
	pop := func() {
		j, ok := q.pop()
		if !ok {
			t.Fatal("queue ended early")
		}
		got = append(got, j.file.Path)
	}
	pop()
	pop()
	prio.Want("/w/b", "/w/c") // c again: its files were handed out already
	for range 5 {
		pop()
	}
	if _, ok := q.pop(); ok {
		t.Fatal("queue handed out more files than it had")
	}
	want := []string{"/w/c/1.go", "/w/c/2.go", "/w/b/1.go", "/w/b/2.go", "/w/a/1.go", "/w/a/2.go", "/w/c/d/1.go"}
	if len(got) != len(want) {
		t.Fatalf("order = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("order = %v, want %v", got, want)
		}
	}
	// A nil Priority keeps the order.
	q = newQueue(todo[:2], nil)
	if j, _ := q.pop(); j.file.Path != "/w/a/1.go" {
		t.Errorf("without a priority, first = %s", j.file.Path)
	}
}

// Wants made between refreshes keep the latest maxWanted folders.
func TestPriorityKeepsTheLatestWants(t *testing.T) {
	var prio Priority
	for i := range 3 * maxWanted {
		prio.Want(fmt.Sprint("/w/", i))
	}
	got := prio.take()
	if len(got) != maxWanted || got[0] != fmt.Sprint("/w/", 2*maxWanted) || got[len(got)-1] != fmt.Sprint("/w/", 3*maxWanted-1) {
		t.Fatalf("kept %d folders, %v … %v; want the latest %d", len(got), got[0], got[len(got)-1], maxWanted)
	}
	if again := prio.take(); len(again) != 0 {
		t.Errorf("a second take returned %v", again)
	}
}
