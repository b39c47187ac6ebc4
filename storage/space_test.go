package storage

import (
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// A disk with less room than badger may need is never written to: Open keeps
// the index in memory and says why, and a write that would run the disk out
// fails with ErrDiskFull, leaving what was written before intact.
func TestFullDiskNeverReachesBadger(t *testing.T) {
	var free atomic.Uint64
	free.Store(10 << 20)
	measure := func(string) (uint64, error) { return free.Load(), nil }

	ix, _ := openTemp(t, Options{FreeSpace: measure})
	if !ix.InMemory() || !strings.Contains(ix.Notice(), "10 MB free") || !strings.Contains(ix.Notice(), "in-memory") {
		t.Fatalf("a nearly full disk: inMemory=%v notice %q", ix.InMemory(), ix.Notice())
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil)) // memory has room

	free.Store(1 << 30)
	ix, _ = openTemp(t, Options{FreeSpace: measure})
	if ix.InMemory() {
		t.Fatal("a disk with room got an in-memory index")
	}
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	free.Store(minFreeBytes - 1)
	err := ix.PutFile("/w/b.go", time.Unix(1700000000, 0), fakeFacts("b", []string{"B"}, nil))
	var full *DiskFullError
	if !errors.Is(err, ErrDiskFull) || !errors.As(err, &full) || full.Free != minFreeBytes-1 {
		t.Fatalf("PutFile on a full disk: %v", err)
	}
	if defs, err := ix.DefsNamed("A"); err != nil || len(defs) != 1 {
		t.Errorf("the file written before the disk filled: %+v, %v", defs, err)
	}
	if defs, err := ix.DefsNamed("B"); err != nil || len(defs) != 0 {
		t.Errorf("the refused file was written: %+v, %v", defs, err)
	}
	free.Store(1 << 30) // room again: writes go on
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"B"}, nil))
	if defs, err := ix.DefsNamed("B"); err != nil || len(defs) != 1 {
		t.Errorf("after room returned: %+v, %v", defs, err)
	}
}

// A write batch checks the room as it goes, not only at its end: badger
// commits a batch's entries in the background as they accumulate.
func TestWriteBatchChecksRoomAsItGoes(t *testing.T) {
	var free atomic.Uint64
	free.Store(1 << 30)
	ix, _ := openTemp(t, Options{FreeSpace: func(string) (uint64, error) { return free.Load(), nil }})
	w := ix.newWriteBatch()
	defer w.Cancel()
	value := make([]byte, 64<<10)
	for i := 0; i < 8; i++ {
		if err := w.Set([]byte{0xff, byte(i)}, value); err != nil {
			t.Fatalf("set %d with room: %v", i, err)
		}
	}
	free.Store(0)
	var err error
	for i := 0; i < spaceCheckBytes/len(value)+1 && err == nil; i++ {
		err = w.Set([]byte{0xfe, byte(i)}, value)
	}
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("a batch that ran the disk out kept going: %v", err)
	}
	if err := w.Flush(); !errors.Is(err, ErrDiskFull) {
		t.Errorf("Flush after the disk filled: %v", err)
	}
}

// An index whose disk fills moves to memory and comes back when space
// returns; readers holding it across both moves keep answering, and the
// disk keeps what was written before it filled.
func TestIndexMovesToMemoryAndBack(t *testing.T) {
	var free atomic.Uint64
	free.Store(1 << 30)
	ix, _ := openTemp(t, Options{FreeSpace: func(string) (uint64, error) { return free.Load(), nil }})
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	if moved, err := ix.ReturnToDisk(); moved || err != nil {
		t.Fatalf("an index on disk returned to it: %v %v", moved, err)
	}

	free.Store(minFreeBytes - 1)
	err := ix.PutFile("/w/b.go", time.Unix(1700000000, 0), fakeFacts("b", []string{"B"}, nil))
	if !errors.Is(err, ErrDiskFull) {
		t.Fatalf("PutFile on a full disk: %v", err)
	}
	stop := make(chan struct{})
	readers := make(chan error)
	go func() { // a reader across the moves: never an error
		defer close(readers)
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := ix.DefsNamed("A"); err != nil {
				readers <- err
				return
			}
		}
	}()
	if err := ix.MoveToMemory(err); err != nil {
		t.Fatal(err)
	}
	if !ix.InMemory() || !ix.SpaceFallback() || ix.Dir() != "" || !strings.Contains(ix.Notice(), "moved to memory") {
		t.Fatalf("after the move: inMemory %v fallback %v dir %q notice %q", ix.InMemory(), ix.SpaceFallback(), ix.Dir(), ix.Notice())
	}
	// The caller refreshes the moved index; memory has room.
	mustPut(t, ix, "/w/a.go", fakeFacts("a", []string{"A"}, nil))
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"B"}, nil))
	if defs, err := ix.DefsNamed("B"); err != nil || len(defs) != 1 {
		t.Fatalf("in memory: %+v %v", defs, err)
	}
	if moved, err := ix.ReturnToDisk(); moved || err != nil {
		t.Fatalf("returned to a disk still full: %v %v", moved, err)
	}

	free.Store(1 << 30)
	if moved, err := ix.ReturnToDisk(); !moved || err != nil {
		t.Fatalf("space returned, the index stayed in memory: %v %v", moved, err)
	}
	if ix.InMemory() || ix.SpaceFallback() || ix.Notice() != "" {
		t.Fatalf("after the return: inMemory %v fallback %v notice %q", ix.InMemory(), ix.SpaceFallback(), ix.Notice())
	}
	if defs, err := ix.DefsNamed("A"); err != nil || len(defs) != 1 {
		t.Errorf("the disk lost what it had: %+v %v", defs, err)
	}
	if defs, err := ix.DefsNamed("B"); err != nil || len(defs) != 0 {
		t.Errorf("the disk has what was refused before the refresh: %+v %v", defs, err)
	}
	mustPut(t, ix, "/w/b.go", fakeFacts("b", []string{"B"}, nil))
	if defs, err := ix.DefsNamed("B"); err != nil || len(defs) != 1 {
		t.Errorf("after the refresh on disk: %+v %v", defs, err)
	}
	close(stop)
	if err := <-readers; err != nil {
		t.Fatalf("a reader across the moves failed: %v", err)
	}
}
