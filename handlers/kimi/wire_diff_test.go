package kimi

import (
	"reflect"
	"strings"
	"testing"
)

// Diff blocks as kimi-cli builds them: a hunk per change with three lines
// of context, its starts 1-based, the "no newline" marker not part of the
// text, and a summary block for a file over 10000 lines.
func TestChangeBlocks(t *testing.T) {
	got := changeBlocks("/w/a.txt", "a\nb\nc", "a\nB\nc")
	want := []any{diffBlock("/w/a.txt", "a\nb\nc", "a\nB\nc", 1, 1, false)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("no trailing newline: %v", got)
	}
	got = changeBlocks("/w/a.txt", "a\nb\n", "")
	want = []any{diffBlock("/w/a.txt", "a\nb", "", 1, 1, false)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("emptied file: %v", got)
	}
	if got := changeBlocks("/w/a.txt", "same", "same"); len(got) != 0 {
		t.Fatalf("no change: %v", got)
	}
	big := strings.Repeat("x\n", hugeFileLines+1)
	got = changeBlocks("/w/big.txt", big, strings.Replace(big, "x", "y", 1))
	want = []any{diffBlock("/w/big.txt", "(10001 lines)", "(10001 lines, modified)", 1, 1, true)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("huge file: %v", got)
	}
	got = changeBlocks("/w/big.txt", big, big+"z\n")
	want = []any{diffBlock("/w/big.txt", "(10001 lines)", "(10002 lines)", 1, 1, true)}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("huge file grown: %v", got)
	}
}
