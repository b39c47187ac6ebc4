package document

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// sampleText is a large document with what makes columns differ between
// encodings: CRLF and LF lines, a surrogate pair, 2- and 3-byte runes, a '\r'
// inside a line, empty lines, no final newline.
func sampleText(lines int) string {
	var b strings.Builder
	for i := range lines {
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "func f%d() { return \"😀 ok\" }\r\n", i)
		case 1:
			fmt.Fprintf(&b, "\tcafé %d — naïve ünïcode 漢字\n", i)
		case 2:
			b.WriteString("\n")
		case 3:
			fmt.Fprintf(&b, "x\ry %d 𝄞𝄞\n", i)
		default:
			fmt.Fprintf(&b, "line %d: the quick brown fox jumps over the lazy dog\n", i)
		}
	}
	b.WriteString("end")
	return b.String()
}

var insertions = []string{"", "a", "😀", "é", "\n", "\r\n", "new\nlines\nhere", "漢字\n😀\n", "x\r", "  "}

// randomChanges makes n changes, each valid against the result of the ones
// before it, and returns them with the text that applying them one at a
// time gives. order picks where each change lands: "random", "mixed"
// (random, with a full replacement halfway), "down" (each after the
// previous, as a formatter sends them) or "up" (each before it, as
// multi-cursor edits usually come).
func randomChanges(t testing.TB, doc *Document, n int, enc Encoding, order string, rng *rand.Rand) ([]Change, *Document) {
	var changes []Change
	cur := doc
	last := Position{}
	if order == "up" {
		last = Position{Line: cur.LineCount() - 1, Character: 1 << 20}
	}
	for i := range n {
		var c Change
		if i == n/2 && order == "mixed" {
			c.Text = sampleText(50) // a full replacement amid the ranges
		} else {
			pos := func() Position {
				p := Position{Line: rng.IntN(cur.LineCount() + 1)}
				switch order {
				case "down":
					p.Line = min(last.Line+rng.IntN(3), cur.LineCount())
				case "up":
					p.Line = max(last.Line-rng.IntN(3), 0)
				}
				if p.Line < cur.LineCount() {
					end, _ := cur.Offset(Position{Line: p.Line, Character: 1 << 30}, enc)
					start, _ := cur.Offset(Position{Line: p.Line}, enc)
					p.Character = rng.IntN(columnOf(cur.Text[start:end], enc) + 3) // past the end clamps
				}
				return p
			}
			a, b := pos(), pos()
			oa, err := cur.Offset(a, enc)
			if err != nil {
				t.Fatal(err)
			}
			ob, _ := cur.Offset(b, enc)
			if ob < oa {
				a, b = b, a
			}
			if rng.IntN(4) == 0 {
				b = a // a pure insertion
			}
			c = Change{Range: &Range{Start: a, End: b}, Text: insertions[rng.IntN(len(insertions))]}
			last = a
		}
		next, err := cur.Apply(cur.Version+1, []Change{c}, enc)
		if err != nil {
			t.Fatalf("change %d %+v: %v", i, c, err)
		}
		changes = append(changes, c)
		cur = next
	}
	return changes, cur
}

// Thousands of edits on a large document in one Apply give exactly what
// applying them one at a time gives, in every encoding and order.
func TestApplyManyMatchesOneByOne(t *testing.T) {
	// The reference costs edits × size, so the document is large rather
	// than huge.
	doc := New("file:///big.go", "go", 1, []byte(sampleText(3000)))
	for _, enc := range []Encoding{UTF16, UTF8, UTF32} {
		for _, order := range []string{"mixed", "down", "up"} {
			if enc != UTF16 && order != "mixed" {
				continue
			}
			t.Run(string(enc)+"/"+order, func(t *testing.T) {
				rng := rand.New(rand.NewPCG(1, uint64(len(order))))
				changes, want := randomChanges(t, doc, 2000, enc, order, rng)
				got, err := doc.Apply(2, changes, enc)
				if err != nil {
					t.Fatal(err)
				}
				if string(got.Text) != string(want.Text) {
					i := 0
					for i < min(len(got.Text), len(want.Text)) && got.Text[i] == want.Text[i] {
						i++
					}
					t.Fatalf("differs from one by one at byte %d of %d/%d: got %q, want %q", i, len(got.Text), len(want.Text),
						got.Text[i:min(len(got.Text), i+40)], want.Text[i:min(len(want.Text), i+40)])
				}
				if got.Version != 2 || got.LineCount() != want.LineCount() {
					t.Errorf("version %d, %d lines; want 2, %d", got.Version, got.LineCount(), want.LineCount())
				}
			})
		}
	}
}

// The rope reports the errors one-by-one application reports, at the same
// change.
func TestApplyManyErrors(t *testing.T) {
	doc := New("u", "go", 1, []byte("ab😀c\r\nxyz\n"))
	ok := Change{Range: &Range{Start: Position{0, 0}, End: Position{0, 1}}, Text: "A\n"}
	for _, bad := range []Range{
		{Start: Position{5, 0}, End: Position{5, 0}},  // a line past the end (4 lines after ok)
		{Start: Position{4, 1}, End: Position{4, 1}},  // the line after the last, not at column 0
		{Start: Position{-1, 0}, End: Position{0, 0}}, // negative
		{Start: Position{1, 3}, End: Position{1, 0}},  // end before start
	} {
		for _, enc := range []Encoding{UTF16, UTF8} {
			_, errEach := doc.applyEach(2, []Change{ok, {Range: &bad, Text: "x"}}, enc)
			_, errRope := doc.Apply(2, []Change{ok, {Range: &bad, Text: "x"}}, enc)
			if errEach == nil || errRope == nil || errEach.Error() != errRope.Error() {
				t.Errorf("%s %+v: rope %v, one by one %v", enc, bad, errRope, errEach)
				continue
			}
			if !strings.Contains(errRope.Error(), "range end") && !errors.Is(errRope, ErrPosition) {
				t.Errorf("%+v: %v is not ErrPosition", bad, errRope)
			}
		}
	}
	// The line after the last line, at column 0, is the end of the text.
	end := Range{Start: Position{4, 0}, End: Position{4, 0}}
	got, err := doc.Apply(2, []Change{ok, {Range: &end, Text: "!"}}, UTF16)
	if err != nil || string(got.Text) != "A\nb😀c\r\nxyz\n!" {
		t.Errorf("insert at the end: %q %v", got.Text, err)
	}
}

// Text that is not valid UTF-8 takes the one-at-a-time path, whose columns
// decode the edited text rune by rune.
func TestApplyManyInvalidUTF8(t *testing.T) {
	doc := New("u", "go", 1, []byte("a\xf0\x9fZ\x98\x80b\n"))
	changes := []Change{
		{Range: &Range{Start: Position{0, 3}, End: Position{0, 4}}, Text: ""}, // joins a 4-byte rune
		{Range: &Range{Start: Position{0, 3}, End: Position{0, 3}}, Text: "|"},
	}
	got, err := doc.Apply(2, changes, UTF16)
	if err != nil {
		t.Fatal(err)
	}
	if string(got.Text) != "a😀|b\n" {
		t.Errorf("got %q, want the joined rune then the insertion", got.Text)
	}
	// Counting per byte, as the rope does, would have gone wrong here.
	if viaRope, _ := doc.applyRope(changes, UTF16); string(viaRope) == string(got.Text) {
		t.Errorf("the rope gives %q too: this input no longer tests the guard", viaRope)
	}
}

// BenchmarkApplyManyEdits: one didChange of 5000 edits on a 1.1 MB document,
// as one Apply and, for comparison, one change at a time.
func BenchmarkApplyManyEdits(b *testing.B) {
	doc := New("file:///big.go", "go", 1, []byte(sampleText(20000)))
	for _, order := range []string{"up", "random"} {
		changes, _ := randomChanges(b, doc, 5000, UTF16, order, rand.New(rand.NewPCG(7, 7)))
		b.Run(order+"/rope", func(b *testing.B) {
			b.SetBytes(int64(len(doc.Text)))
			for b.Loop() {
				if _, err := doc.Apply(2, changes, UTF16); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(order+"/each", func(b *testing.B) {
			b.SetBytes(int64(len(doc.Text)))
			for b.Loop() {
				if _, err := doc.applyEach(2, changes, UTF16); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
