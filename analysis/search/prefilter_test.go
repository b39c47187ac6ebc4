package search

import (
	"fmt"
	"math/rand"
	"regexp/syntax"
	"testing"
)

// byteRun.next skips ahead n bytes at a time; it must find exactly the
// first run a plain scan finds.
func TestByteRunNext(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for trial := range 2000 {
		hay := make([]byte, rng.Intn(200))
		for i := range hay {
			hay[i] = "aab-"[rng.Intn(4)]
		}
		var r byteRun
		r.set['a'], r.set['b'] = true, true
		r.n = 1 + rng.Intn(8)
		from := 0
		if len(hay) > 0 {
			from = rng.Intn(len(hay))
		}
		want := -1
		for i, run := from, 0; i < len(hay); i++ {
			if r.set[hay[i]] {
				run++
			} else {
				run = 0
			}
			if run == r.n {
				want = i - r.n + 1
				break
			}
		}
		if got := r.next(hay, from); got != want {
			t.Fatalf("trial %d: next(%q, %d) n=%d = %d, want %d", trial, hay, from, r.n, got, want)
		}
	}
}

// The prefilter a pattern gets: a literal set, a byte run, or none.
func TestPrefilterChoice(t *testing.T) {
	cases := []struct {
		pattern string
		want    string // "lit", "run n" or "none"
	}{
		{`ErrUnexpectedEOF`, "lit"},
		{`ErrShortWrite|ErrNoProgress`, "lit"},
		{`(?i)deadline exceeded`, "lit"},
		{`[0-9a-f]{40}`, "run 40"},
		{`[A-Z]{3,}_[A-Z]{3,}`, "run 7"},
		{`\w+`, "none"},
		{`^$`, "none"},
	}
	for _, c := range cases {
		re, err := syntax.Parse(c.pattern, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		got := "none"
		switch p := newPrefilter(re.Simplify()).(type) {
		case *literalSet:
			got = "lit"
		case *byteRun:
			got = fmt.Sprintf("run %d", p.n)
		}
		if got != c.want {
			t.Errorf("%s: prefilter %s, want %s", c.pattern, got, c.want)
		}
	}
}

// A non-ASCII class adds the lead bytes of its own runes only: Chinese text
// breaks a run of \d, Arabic-Indic digits do not.
func TestRunSetNonASCII(t *testing.T) {
	re, err := syntax.Parse(`\p{Nd}{6}`, syntax.Perl)
	if err != nil {
		t.Fatal(err)
	}
	r, ok := newPrefilter(re.Simplify()).(*byteRun)
	if !ok {
		t.Fatal("no byte run for \\p{Nd}{6}")
	}
	arabic := []byte("٠١٢٣٤٥")
	if r.next(arabic, 0) != 0 {
		t.Errorf("Arabic-Indic digits %x are not a run", arabic)
	}
	if r.next([]byte("汉字汉字汉字"), 0) != -1 {
		t.Error("Chinese text is a run of digits")
	}
}
