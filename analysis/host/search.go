package host

import "github.com/kast-dev/kast/analysis/search"

// Search returns the search engine over the workspace at root, opening the
// root if needed; every caller of the process (the LSP connection's ck
// methods, Kast's raw/workspace-search, kast mcp, kast serve) shares it and
// the host's embedder. The engine lives as long as the root stays open; a
// reopened index gets a new engine. The engine watches the folders its
// searches walk, so a search of an unchanged tree walks nothing.
func (h *Host) Search(root string) (*search.Engine, error) {
	h.mu.Lock()
	defer h.mu.Unlock()
	ow, err := h.getLocked(root)
	if err != nil {
		return nil, err
	}
	if e := h.engines[ow.ws]; e != nil {
		return e, nil
	}
	e, err := search.Open(ow.ws.Root, ow.ws.Index, search.Options{Embedder: h.emb, Watch: true})
	if err != nil {
		return nil, err
	}
	h.engines[ow.ws] = e
	return e, nil
}
