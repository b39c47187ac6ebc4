package edit

import (
	"cmp"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"
)

// applyTree writes a workspace with two files to edit, one to delete and
// links inside and out, next to a folder outside it.
type applyTree struct {
	base, ws, a, b, c string
	textA, textB      string
	names             []string // the paths a plan may name (see target)
}

const textC = "delete me\n"

func newApplyTree(t *testing.T, textA, textB string) *applyTree {
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ws := filepath.Join(base, "ws")
	tr := &applyTree{base: base, ws: ws, a: filepath.Join(ws, "a.txt"), b: filepath.Join(ws, "dir", "b.txt"),
		c: filepath.Join(ws, "c.txt"), textA: textA, textB: textB}
	for _, d := range []string{filepath.Join(ws, "dir"), filepath.Join(base, "outside")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for p, text := range map[string]string{tr.a: textA, tr.b: textB, tr.c: textC, filepath.Join(base, "outside", "secret.txt"): "secret"} {
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for link, target := range map[string]string{"alias.txt": "a.txt", "out": "../outside", "dirlink": "dir"} {
		if err := os.Symlink(target, filepath.Join(ws, link)); err != nil {
			t.Fatal(err)
		}
	}
	tr.names = []string{
		tr.a, tr.b, filepath.Join(ws, "alias.txt"), ws + "/dir/../a.txt", filepath.Join(ws, "dirlink", "b.txt"), tr.c,
		filepath.Join(ws, "out", "secret.txt"), "a.txt", filepath.Join(ws, "missing.txt"),
	}
	return tr
}

// target is the real file a name of tr.names stands for, or "" for a name
// the plan must be refused for (outside, relative, missing).
func (tr *applyTree) target(name string) string {
	switch name {
	case tr.names[0], tr.names[2], tr.names[3]:
		return tr.a
	case tr.names[1], tr.names[4]:
		return tr.b
	case tr.names[5]:
		return tr.c
	}
	return ""
}

func (tr *applyTree) text(real string) string {
	return map[string]string{tr.a: tr.textA, tr.b: tr.textB, tr.c: textC}[real]
}

// snapshot records every file (content), link (target) and folder under dir.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		switch {
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			out[p] = "link " + target
			return err
		case d.IsDir():
			out[p] = "dir"
		default:
			b, err := os.ReadFile(p)
			out[p] = "file " + string(b)
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// program reads the fuzzer's bytes as plan choices; past its end it reads 0.
type program struct{ b []byte }

func (p *program) next() int {
	if len(p.b) == 0 {
		return 0
	}
	v := int(p.b[0])
	p.b = p.b[1:]
	return v
}

// offset maps a byte to -1 or an offset up to one past the end of text.
func offset(v, size int) int {
	if v == 255 {
		return -1
	}
	return v % (size + 2)
}

// FuzzApply applies fuzzed plans (edits through links and bad paths, right
// and wrong hashes, overlapping and out-of-range offsets, a create and a
// delete) and compares with a reference: a plan the reference accepts is
// applied exactly as a naive front-to-back application says; any other is
// refused with every file, link and folder byte-identical.
func FuzzApply(f *testing.F) {
	// prog: flags, the number of edits, then per edit the name, start, end,
	// and where and how much of pool its new text is.
	f.Add("hello, world\n", "package b\n", []byte{0x05, 2, 0, 7, 12, 0, 7, 4, 8, 9, 3, 4}, "Hi kast") // edits in two files, one through dirlink
	f.Add("héllo\n", "x", []byte{0x01, 1, 0, 2, 3, 0, 1}, "e")                                        // an offset inside é
	f.Add("0123456789", "", []byte{0x01, 2, 0, 2, 6, 0, 2, 0, 4, 8, 0, 1}, "ab")                      // overlapping edits
	f.Add("0123456789", "", []byte{0x09, 1, 2, 2, 3, 0, 1}, "ab")                                     // hashes under the link and the file
	f.Add("0123456789", "abc", []byte{0x05, 2, 4, 0, 0, 0, 2, 1, 3, 3, 1, 1}, "xy")                   // inserts at both ends of b
	f.Add("0123456789", "abc", []byte{0x61, 1, 0, 0, 0, 0, 0}, "new file")                            // create and delete beside an edit
	f.Add("0123456789", "abc", []byte{0xe0, 0}, "")                                                   // only file operations, a stale delete hash
	f.Add("0123456789", "abc", []byte{0x01, 1, 6, 0, 1, 0, 1}, "z")                                   // an edit outside through a link
	f.Add("0123456789", "abc", []byte{0x01, 3, 0, 3, 3, 0, 1, 0, 3, 3, 1, 1, 0, 3, 5, 0, 2}, "pq")    // two inserts at one offset, then a replace
	f.Add("0123456789", "abc", []byte{0x41, 1, 3, 9, 10, 0, 2}, "ok")                                 // a/../ spelling, and a delete
	f.Add("0123456789", "abc", []byte{0x01, 3, 0, 8, 9, 0, 1, 2, 0, 1, 1, 1, 3, 4, 4, 0, 2}, "uv")    // three names of a, out of order
	f.Add("0123456789", "abc", []byte{0x03, 1, 0, 0, 10, 0, 0}, "")                                   // a stale hash
	f.Fuzz(func(t *testing.T, textA, textB string, prog []byte, pool string) {
		tr := newApplyTree(t, textA, textB)
		p := &program{b: prog}
		flags := p.next()
		plan := Plan{Roots: []string{tr.ws}, Hashes: map[string]string{}}
		valid := true // what the reference makes of the plan so far
		hashed := map[string]string{}
		addHash := func(name string, right bool) {
			h := Hash([]byte(tr.text(tr.target(name))))
			if !right {
				h = Hash([]byte("stale"))
			}
			plan.Hashes[name] = h
			real := tr.target(name)
			if _, dup := hashed[real]; dup {
				valid = false // two names of one file
			}
			hashed[real] = h
		}
		if flags&1 != 0 {
			addHash(tr.names[0], flags&2 == 0)
		}
		if flags&4 != 0 {
			addHash(tr.names[1], true)
		}
		if flags&8 != 0 {
			addHash(tr.names[2], true) // a's link: a second name when a is hashed
		}
		edited := map[string][]Edit{}
		for range p.next() % 6 {
			name := tr.names[p.next()%len(tr.names)]
			real := tr.target(name)
			size := len(tr.text(real))
			start, end := offset(p.next(), size), offset(p.next(), size)
			from := p.next() % (len(pool) + 1)
			text := pool[from:min(len(pool), from+p.next()%8)]
			plan.Edits = append(plan.Edits, Edit{Path: name, Start: start, End: end, NewText: text})
			if real == "" || start < 0 || end < start {
				valid = false
				continue
			}
			edited[real] = append(edited[real], Edit{Path: real, Start: start, End: end, NewText: text})
		}
		created := filepath.Join(tr.ws, "new", "d.txt")
		if flags&32 != 0 {
			plan.Ops = append(plan.Ops, FileOp{Create: true, Path: created, Content: pool})
		}
		if flags&64 != 0 {
			h := Hash([]byte(textC))
			if flags&128 != 0 {
				h = Hash([]byte("stale"))
				valid = false
			}
			plan.Ops = append(plan.Ops, FileOp{Path: tr.c, ExpectedHash: h})
			if _, both := edited[tr.c]; both {
				valid = false
			}
		}
		if len(plan.Edits) == 0 && len(plan.Ops) == 0 {
			valid = false
		}

		want := snapshot(t, tr.base)
		before := maps.Clone(want)
		for real, edits := range edited {
			text := tr.text(real)
			if h, ok := hashed[real]; !ok || h != Hash([]byte(text)) {
				valid = false
			}
			out, ok := naiveApply(text, edits)
			valid = valid && ok
			want[real] = "file " + out
		}
		if flags&32 != 0 {
			want[filepath.Dir(created)] = "dir"
			want[created] = "file " + pool
		}
		if flags&64 != 0 {
			delete(want, tr.c)
		}

		applied, err := Apply(plan)
		after := snapshot(t, tr.base)
		if err != nil {
			if !maps.Equal(before, after) {
				t.Fatalf("refused (%v), yet the tree changed:\nbefore %q\nafter  %q", err, before, after)
			}
			if valid {
				t.Fatalf("a valid plan was refused: %v\nplan %+v", err, plan)
			}
			return
		}
		if !valid {
			t.Fatalf("an invalid plan was applied: %+v\nplan %+v", applied, plan)
		}
		if !maps.Equal(want, after) {
			t.Fatalf("applied differently from the reference:\nwant %q\ngot  %q\nplan %+v", want, after, plan)
		}
		affected := slices.Collect(maps.Keys(edited))
		for _, op := range plan.Ops {
			affected = append(affected, op.Path)
		}
		slices.Sort(affected)
		if !slices.Equal(affected, applied.Affected) {
			t.Fatalf("affected %q, want %q", applied.Affected, affected)
		}
	})
}

// naiveApply applies edits front to back in (start, end) order, as a
// reader of the plan would by hand; ok is false when an offset is out of
// range or inside a character, or two edits overlap.
func naiveApply(text string, edits []Edit) (string, bool) {
	edits = slices.Clone(edits)
	slices.SortStableFunc(edits, func(x, y Edit) int { return cmp.Or(cmp.Compare(x.Start, y.Start), cmp.Compare(x.End, y.End)) })
	inside := func(off int) bool {
		return off > len(text) || off < len(text) && !utf8.RuneStart(text[off])
	}
	out, at := "", 0
	for _, e := range edits {
		if inside(e.Start) || inside(e.End) || e.Start < at {
			return "", false
		}
		out += text[at:e.Start] + e.NewText
		at = e.End
	}
	return out + text[at:], true
}
