package storage

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/dgraph-io/badger/v4"

	"github.com/kast-dev/kast/analysis"
)

// The tests below re-run the test binary as a child process (selected by
// KAST_STORAGE_CHILD) so two processes really contend for one directory.

func TestMain(m *testing.M) {
	switch os.Getenv("KAST_STORAGE_CHILD") {
	case "open":
		childOpen(os.Getenv("KAST_STORAGE_DIR"))
	case "write":
		childWrite(os.Getenv("KAST_STORAGE_DIR"))
	default:
		os.Exit(m.Run())
	}
}

func child(t *testing.T, mode, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), "KAST_STORAGE_CHILD="+mode, "KAST_STORAGE_DIR="+dir)
	cmd.Stderr = os.Stderr
	return cmd
}

// childOpen opens the index, reports whether it fell back to memory, and
// whether it could index a file there.
func childOpen(dir string) {
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	defer ix.Close()
	fmt.Printf("inmemory=%v notice=%s\n", ix.InMemory(), ix.Notice())
	facts := randomFacts(rand.New(rand.NewPCG(3, 4)))
	if err := ix.PutFile("/w/a.go", time.Now(), facts); err != nil {
		fmt.Println("write:", err)
	} else if got, err := ix.Facts("/w/a.go"); err != nil || len(got.Refs) != len(facts.Refs) {
		fmt.Println("read:", err)
	} else {
		fmt.Println("indexed")
	}
	os.Exit(0)
}

// childWrite rewrites 10 files and adds 10 new ones with random facts in
// each batch until it is killed, so that kills land in both ways a file is
// written: rewritten in the batch's transactions, or, new, with its postings
// loaded after them. A batch is large enough that badger commits it as
// several transactions, so a kill can land between the writes of one file.
func childWrite(dir string) {
	ix, err := Open("/w", Options{Dir: dir})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	rng := rand.New(rand.NewPCG(uint64(os.Getpid()), 1))
	for round := 0; ; round++ {
		if round == 1 {
			fmt.Println("ready") // one batch is committed
		}
		b := ix.NewBatch()
		for j := range 20 {
			path := fmt.Sprintf("/w/f%02d.go", j)
			if j >= 10 {
				path = fmt.Sprintf("/w/new%d/f%02d.go", round, j)
			}
			if err := b.PutFile(path, time.Now(), randomFacts(rng)); err != nil {
				panic(err)
			}
		}
		if err := b.Flush(); err != nil {
			panic(err)
		}
	}
}

func randomFacts(rng *rand.Rand) *analysis.FileFacts {
	pick := func(n int) []string {
		var out []string
		for range n {
			out = append(out, fmt.Sprintf("N%d", rng.IntN(2000)))
		}
		return out
	}
	defs := pick(rng.IntN(200))
	for i := range defs {
		if rng.IntN(5) == 0 {
			defs[i] += "<" + pick(1)[0]
		}
	}
	return fakeFacts(fmt.Sprint(rng.Uint64()), defs, pick(rng.IntN(1500)))
}

func TestSecondProcessFallsBackToMemory(t *testing.T) {
	_, dir := openTemp(t, Options{})
	out, err := child(t, "open", dir).Output()
	if err != nil {
		t.Fatalf("child: %v: %s", err, out)
	}
	want := fmt.Sprintf("inmemory=true notice=the index at %s is in use by another process (pid %d)", dir, os.Getpid())
	if !strings.HasPrefix(string(out), want) || !strings.HasSuffix(string(out), "\nindexed\n") {
		t.Errorf("child said %q, want %q and then that it indexed a file", out, want)
	}
}

func TestKilledWriterLeavesRepairableIndex(t *testing.T) {
	dir := t.TempDir()
	for round := range 3 {
		cmd := child(t, "write", dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		if line, _ := bufio.NewReader(stdout).ReadString('\n'); line != "ready\n" {
			t.Fatalf("child: %q", line)
		}
		time.Sleep(time.Duration(200+rand.IntN(300)) * time.Millisecond)
		cmd.Process.Kill()
		cmd.Wait()

		ix, err := Open("/w", Options{Dir: dir})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ix.Close() })
		if ix.Notice() != "" || ix.InMemory() {
			t.Fatalf("round %d: reopen after kill: %q", round, ix.Notice())
		}
		files, err := ix.Files()
		if err != nil {
			t.Fatal(err)
		}
		if len(files) == 0 {
			t.Fatalf("round %d: nothing written before the kill", round)
		}
		incomplete := checkConsistent(t, ix)
		t.Logf("round %d: %d files, %d incomplete", round, len(files), len(incomplete))

		// The indexer's repair: rewrite incomplete files, then everything is consistent.
		rng := rand.New(rand.NewPCG(uint64(round), 2))
		for _, path := range incomplete {
			mustPut(t, ix, path, randomFacts(rng))
		}
		if left := checkConsistent(t, ix); len(left) != 0 {
			t.Errorf("round %d: still incomplete after repair: %v", round, left)
		}
		if err := ix.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// checkConsistent verifies that every posting row is listed in its file's
// reverse index and that each complete file's rows are exactly those its
// stored facts produce. It returns the incomplete files.
func checkConsistent(t *testing.T, ix *Index) (incomplete []string) {
	t.Helper()
	listed := map[uint32]map[postingRef]bool{}
	present := map[uint32][]postingRef{}
	named := map[uint32]bool{} // name ids with a name row
	err := ix.view(func(txn *badger.Txn) error {
		it := txn.NewIterator(badger.IteratorOptions{})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			key := it.Item().KeyCopy(nil)
			switch {
			case key[0] == tagReverse:
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				refs, err := decodePostingRefs(v)
				if err != nil {
					return err
				}
				set := map[postingRef]bool{}
				for _, r := range refs {
					set[r] = true
				}
				listed[binary.BigEndian.Uint32(key[1:5])] = set
			case key[0] == tagNameLower:
				v, err := it.Item().ValueCopy(nil)
				if err != nil {
					return err
				}
				named[binary.BigEndian.Uint32(v)] = true
			case slices.Contains(postingTags, key[0]):
				ref := postingRef{key[0], binary.BigEndian.Uint32(key[1:5])}
				present[postingFileID(key)] = append(present[postingFileID(key)], ref)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for fileID, refs := range present {
		for _, r := range refs {
			if !listed[fileID][r] {
				t.Errorf("file %d: posting %c/%d is not in the reverse index", fileID, r.tag, r.nameID)
			}
		}
	}

	files, err := ix.Files()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		if f.Incomplete {
			incomplete = append(incomplete, f.Path)
			continue
		}
		stored, err := ix.loadFile(f.Path)
		if err != nil {
			t.Fatal(err)
		}
		// A complete file's postings must be reachable by name.
		for _, r := range present[stored.id] {
			if !named[r.nameID] {
				t.Errorf("%s: posting %c/%d has no name row", f.Path, r.tag, r.nameID)
			}
		}
		facts, err := ix.Facts(f.Path)
		if err != nil {
			t.Errorf("%s: complete file without facts: %v", f.Path, err)
			continue
		}
		var want []postingRef
		for _, table := range ix.postingTables(facts) {
			names := map[string]bool{}
			for i := range table.n {
				if name := table.name(i); name != "" {
					names[name] = true
				}
			}
			for name := range names {
				id, ok, err := ix.lookupName(name)
				if err != nil || !ok {
					t.Fatalf("%s: name %s not interned: %v", f.Path, name, err)
				}
				want = append(want, postingRef{table.tag, id})
			}
		}
		slices.SortFunc(want, comparePostingRefs)
		got := present[stored.id]
		slices.SortFunc(got, comparePostingRefs)
		if !slices.Equal(got, want) || !slices.Equal(stored.postings, want) {
			t.Errorf("%s: postings %v, reverse index %v, facts imply %v", f.Path, got, stored.postings, want)
		}
	}
	return incomplete
}
