package workspace

import (
	"slices"
	"sync"

	"github.com/kast-dev/kast/analysis/resolve"
)

// hintedMemoNames is how many names' hinted references a view keeps: the
// names of the queries running at once, each listed a few times.
const hintedMemoNames = 4

// hintedRefsMemo keeps the hinted references of the last names listed at
// one view generation, most recent last. Lists are shared: the view clips
// their capacity, so that a caller appending copies.
type hintedRefsMemo struct {
	mu      sync.Mutex
	gen     uint64
	names   []string
	listing [][]resolve.HintedRef
}

func (m *hintedRefsMemo) get(gen uint64, name string) ([]resolve.HintedRef, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen {
		return nil, false
	}
	i := slices.Index(m.names, name)
	if i < 0 {
		return nil, false
	}
	return m.listing[i], true
}

func (m *hintedRefsMemo) put(gen uint64, name string, refs []resolve.HintedRef) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.gen != gen {
		m.gen, m.names, m.listing = gen, nil, nil
	}
	if slices.Contains(m.names, name) {
		return
	}
	if len(m.names) >= hintedMemoNames {
		m.names, m.listing = slices.Delete(m.names, 0, 1), slices.Delete(m.listing, 0, 1)
	}
	m.names, m.listing = append(m.names, name), append(m.listing, refs)
}
