package search

// Clean drops the search index of the workspace (ck --clean); the next
// search or refresh builds it again.
func (e *Engine) Clean() error {
	e.refreshMu.Lock()
	defer e.refreshMu.Unlock()
	if err := e.store.DropSearch(); err != nil {
		return err
	}
	e.mu.Lock()
	e.st = nil
	e.mu.Unlock()
	return nil
}

// FileChunks returns the chunks the index holds for a file (absolute path),
// and whether it holds the file at all (ck --inspect, --dump-chunks).
func (e *Engine) FileChunks(path string) ([]Chunk, bool, error) {
	st, err := e.load()
	if err != nil {
		return nil, false, err
	}
	f, ok := st.files[e.rel(path)]
	if !ok {
		return nil, false, nil
	}
	return f.chunks, true, nil
}

// Section is the innermost indexed chunk of path holding line (1-based):
// the function, method or type around a match (ck --full-section).
func (e *Engine) Section(path string, line int) (Chunk, bool, error) {
	chunks, ok, err := e.FileChunks(path)
	if err != nil || !ok {
		return Chunk{}, false, err
	}
	var best Chunk
	found := false
	for _, c := range chunks {
		if c.StartLine <= line && line <= c.EndLine && (!found || c.EndLine-c.StartLine < best.EndLine-best.StartLine) {
			best, found = c, true
		}
	}
	return best, found, nil
}
