package workspace

import "testing"

// HearSpansRead calls heard with each file whose reference spans a query
// reads without resolving its references, for the test.
func HearSpansRead(t *testing.T, heard func(path string, n int)) {
	spansRead = heard
	t.Cleanup(func() { spansRead = nil })
}

// HearWholeRead calls heard with each file a reference query reads whole
// to resolve its references, for the test.
func HearWholeRead(t *testing.T, heard func(path string)) {
	wholeRead = heard
	t.Cleanup(func() { wholeRead = nil })
}

// ReadSpansFromFacts makes queries read settled references' spans from
// their files' facts rather than from their postings, for the test.
func ReadSpansFromFacts(t *testing.T) {
	postingSpans = false
	t.Cleanup(func() { postingSpans = true })
}
