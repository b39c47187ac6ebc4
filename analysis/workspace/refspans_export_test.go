package workspace

import "testing"

// HearSpansRead calls heard with each file whose reference spans a query
// reads without resolving its references, for the test.
func HearSpansRead(t *testing.T, heard func(path string, n int)) {
	spansRead = heard
	t.Cleanup(func() { spansRead = nil })
}
