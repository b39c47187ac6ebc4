package search

import (
	"context"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

// dfaPatterns exercise what the DFA must decide exactly as the regexp:
// classes with multi-byte runes, folding, anchors, repetition counts,
// alternations, markers (\b, -w) it treats as no constraint, and the
// patterns of the ripgrep table.
var dfaPatterns = []rgCase{
	{`[[:upper:]]{3,}_[[:upper:]]{3,}`, ""},
	{`\S\s{8}\S`, ""},
	{`\d{4}-\d{2}-\d{2}`, ""},
	{`\w+ß`, ""},
	{`straße`, "i"},
	{`k`, "i"},
	{`^\s*//`, ""},
	{`^$`, ""},
	{`x$`, ""},
	{`^ab|cd$`, ""},
	{`$^`, ""},
	{`\p{Greek}{2,}`, ""},
	{`[^a-z]{3}`, ""},
	{`.é.`, ""},
	{`\bfoo\b`, ""},
	{`foo`, "w"},
	{`a.c`, ""},
	{`[\x{80}-\x{10FFFF}]`, ""},
	{`\x{FFFD}`, ""},
	{`(?:ab)+c?d{2,3}`, ""},
	{`世界|日本`, ""},
	{`[0-9a-f]{8}`, ""},
	{`Ǆ`, "i"},
}

// dfaAlphabet mixes ASCII, multi-byte runes, folding pairs and bytes that
// are not UTF-8 (a stray continuation byte, a truncated sequence, an
// encoded surrogate).
var dfaAlphabet = []string{
	"a", "b", "c", "d", "f", "o", "x", "k", "K", "\u212a", "s", "S", "ſ", "ß", "ẞ", "é", "E", "_",
	"A", "B", "Z", "0", "1", "9", "-", " ", "\t", "\n", "\n", "/", "α", "β", "Ω", "世", "界", "日", "本",
	"\u00a0", "\u2003", "٣", "\xff", "\x80", "\xe4\xb8", "\xed\xa0\x80", "\ufffd", "ǆ", "ǅ", "Ǆ", "\r",
}

// TestDFAAgreesWithRegexp compares every match the matcher finds with its
// DFA and without it on random texts: the DFA may only skip lines that
// hold no match.
func TestDFAAgreesWithRegexp(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for _, c := range dfaPatterns {
		q := RegexQuery{Pattern: c.pattern, IgnoreCase: strings.Contains(c.flags, "i"), WholeWord: strings.Contains(c.flags, "w")}
		withDFA, err := NewMatcher(q)
		if err != nil {
			t.Fatal(err)
		}
		if withDFA.dfa == nil && c.pattern != `^$` && c.pattern != `$^` {
			t.Errorf("%q: no DFA", c.pattern)
		}
		if !strings.ContainsAny(c.pattern, `^$\b`) && c.flags == "" && (withDFA.dfa == nil || withDFA.dfa.rev == nil) {
			t.Errorf("%q: no reverse DFA for the offsets", c.pattern)
		}
		plain := *withDFA
		plain.dfa = nil
		for range 400 {
			var b strings.Builder
			for range rng.IntN(60) {
				if rng.IntN(4) == 0 {
					b.WriteString(c.pattern[:rng.IntN(len(c.pattern)+1)]) // pieces of the pattern make matches likelier
				}
				b.WriteString(dfaAlphabet[rng.IntN(len(dfaAlphabet))])
			}
			text := []byte(b.String())
			want := plain.grepText(ctx, "f", text, 0, 0)
			got := withDFA.grepText(ctx, "f", text, 0, 0)
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%q on %q:\n DFA:    %v\n regexp: %v", c.pattern, text, got, want)
			}
		}
	}
}

// TestUTF8Sequences checks the byte-range split against the encoder on
// every boundary it must respect.
func TestUTF8Sequences(t *testing.T) {
	for _, r := range [][2]rune{{0, 0x10FFFF}, {0x7F, 0x80}, {0x7FF, 0x800}, {0xD7FF, 0xE000}, {0xFFFF, 0x10000}, {0x100, 0x105}, {0x3B1, 0x3C9}} {
		seqs := utf8Sequences(r[0], r[1], nil)
		in := func(b []byte) bool {
			for _, s := range seqs {
				if len(s) != len(b) {
					continue
				}
				ok := true
				for i := range s {
					ok = ok && s[i].lo <= b[i] && b[i] <= s[i].hi
				}
				if ok {
					return true
				}
			}
			return false
		}
		for c := max(0, r[0]-300); c <= min(utf8.MaxRune, r[1]+300); c++ {
			if c > r[0]+5000 && c < r[1]-5000 {
				c = r[1] - 5000
			}
			want := c >= r[0] && c <= r[1] && utf8.ValidRune(c)
			if got := in(utf8.AppendRune(nil, c)); got != want && utf8.ValidRune(c) {
				t.Fatalf("%x-%x: rune %x in=%v, want %v", r[0], r[1], c, got, want)
			}
		}
		if in([]byte("\xed\xa0\x80")) {
			t.Fatalf("%x-%x: an encoded surrogate matches", r[0], r[1])
		}
	}
}

// TestDFAStateBudget: a pattern whose DFA outgrows its budget (an a 13
// characters before an x at the line's end: the DFA remembers which of the
// last 13 were a's, 2^13 states) gives up, and the regexp answers alone,
// with the same matches.
func TestDFAStateBudget(t *testing.T) {
	m, err := NewMatcher(RegexQuery{Pattern: `a[ab]{12}x$`})
	if err != nil || m.dfa == nil {
		t.Fatalf("no DFA: %v", err)
	}
	plain := *m
	plain.dfa = nil
	rng := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	for i := range 200000 {
		c := byte('a' + rng.IntN(2))
		if rng.IntN(40) == 0 {
			c = 'x'
		}
		b.WriteByte(c)
		if i%100 == 99 || c == 'x' && rng.IntN(2) == 0 {
			b.WriteByte('\n')
		}
	}
	text := []byte(b.String())
	ctx := context.Background()
	want := plain.grepText(ctx, "f", text, 0, 0)
	got := m.grepText(ctx, "f", text, 0, 0)
	if !m.dfa.off.Load() {
		t.Error("the DFA did not give up")
	}
	if len(want) == 0 || !reflect.DeepEqual(got, want) {
		t.Errorf("%d lines with the DFA giving up, %d without it", len(got), len(want))
	}
}
