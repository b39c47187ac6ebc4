package analysis

import (
	"math/rand/v2"
	"strings"
	"testing"
)

func TestFuzzyScore(t *testing.T) {
	for _, tc := range []struct {
		pattern, name string
		match         bool
	}{
		{"", "anything", true},
		{"rf", "ReadFile", true},
		{"RF", "readfile", true},
		{"fr", "ReadFile", false},
		{"σ", "Σίσυφος", true},
		{"日本", "日本語", true},
		{"日本語x", "日本語", false},
	} {
		if got := FuzzyScore(tc.pattern, tc.name) > 0; got != tc.match {
			t.Errorf("FuzzyScore(%q, %q) matches = %v, want %v", tc.pattern, tc.name, got, tc.match)
		}
	}
	ranked := []string{"ReadFile", "readfile", "ReadFileAt", "ReadFromFile"}
	for i := 1; i < len(ranked); i++ {
		if a, b := FuzzyScore("ReadFile", ranked[i-1]), FuzzyScore("ReadFile", ranked[i]); a <= b {
			t.Errorf("%q scores %d, not above %q's %d", ranked[i-1], a, ranked[i], b)
		}
	}
	if n := testing.AllocsPerRun(100, func() { FuzzyScore("rdFl", "ReadFileAtOffset") }); n != 0 {
		t.Errorf("FuzzyScore allocates %v times per call", n)
	}
}

// A name whose mask lacks the pattern's bits never scores: the symbol
// search's prefilter drops no match. The pairs draw on both cases, digits,
// punctuation, the Kelvin sign (which folds to k), ß and invalid bytes.
func TestFuzzyMaskKeepsEveryMatch(t *testing.T) {
	alphabet := []string{"a", "b", "K", "k", "z", "Z", "_", "0", "9", ".", "$", "\u212a", "ß", "é", "\xff", "S"}
	rng := rand.New(rand.NewPCG(1, 2))
	word := func(n int) string {
		var b strings.Builder
		for range rng.IntN(n) + 1 {
			b.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		return b.String()
	}
	rejected := 0
	for range 200000 {
		name, pattern := word(8), word(3)
		want := FuzzyPatternMask(pattern)
		if FuzzyMask(name)&want == want {
			continue
		}
		rejected++
		if s := FuzzyScore(pattern, name); s > 0 {
			t.Fatalf("FuzzyScore(%q, %q) = %d, but the masks rule the name out", pattern, name, s)
		}
	}
	if rejected == 0 {
		t.Fatal("the masks ruled nothing out")
	}
}
