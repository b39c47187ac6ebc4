package analysis

import "testing"

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
