package storage

import (
	"cmp"
	"slices"
)

type scoredName struct {
	indexedName
	score int
}

// rankNames orders matches best first, then by name for stable results.
func rankNames(matches []scoredName) []indexedName {
	slices.SortFunc(matches, func(a, b scoredName) int {
		if c := cmp.Compare(b.score, a.score); c != 0 {
			return c
		}
		return cmp.Compare(a.name, b.name)
	})
	names := make([]indexedName, len(matches))
	for i, m := range matches {
		names[i] = m.indexedName
	}
	return names
}
