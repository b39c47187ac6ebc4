package storage

import (
	"cmp"
	"slices"
	"sync"
)

type scoredName struct {
	indexedName
	score int
}

// rankNames orders matches best first, then by name for stable results.
func rankNames(matches []scoredName) {
	slices.SortFunc(matches, func(a, b scoredName) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
}

// matchBuffers keep DefsFuzzy's matches between requests: a short pattern
// matches most names, and each request's list was 2.6 MB of garbage on
// the Go standard library.
var matchBuffers = sync.Pool{New: func() any { return new([]scoredName) }}
