package kast

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"slices"
	"sync"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/storage"
)

type storageFile = storage.FileState

// Page tokens (Kast's later catalog): opaque, one-use handles the server
// holds, bound to the method, the query (every parameter but the token)
// and the index generation the first page was computed on. A token that is
// unknown, used twice, evicted, for another query or from an older
// generation is refused, never restarted from the top.

// maxHeldPages bounds the cursors held; the oldest is evicted first.
const maxHeldPages = 1024

type pageCursor struct {
	method, query, generation string
	offset                    int
}

// Reasons a page token is refused, as Kast's later catalog names them.
const (
	cursorInvalid = "CURSOR_INVALID"
	cursorStale   = "CURSOR_STALE"
)

type pageStore struct {
	mu    sync.Mutex
	held  map[string]pageCursor
	order []string
}

func (p *pageStore) issue(c pageCursor) string {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = map[string]pageCursor{}
	}
	token := requestID()
	p.held[token] = c
	p.order = append(p.order, token)
	for len(p.order) > maxHeldPages {
		delete(p.held, p.order[0])
		p.order = p.order[1:]
	}
	return token
}

// take claims a token for method and query at generation and returns where
// its page starts; the error is a conflict naming the reason.
func (p *pageStore) take(token, method, query, generation string) (int, error) {
	p.mu.Lock()
	c, ok := p.held[token]
	delete(p.held, token)
	if ok {
		p.order = slices.DeleteFunc(p.order, func(t string) bool { return t == token })
	}
	p.mu.Unlock()
	details := map[string]string{"pageToken": token}
	switch {
	case !ok:
		details["reason"] = cursorInvalid
		return 0, &edit.Error{Kind: edit.Conflict, Msg: "Unknown, used or evicted page token", Details: details}
	case c.method != method || c.query != query:
		details["reason"] = cursorInvalid
		return 0, &edit.Error{Kind: edit.Conflict, Msg: "The page token belongs to another query", Details: details}
	case c.generation != generation:
		details["reason"] = cursorStale
		return 0, &edit.Error{Kind: edit.Conflict, Msg: "The workspace changed since the first page; start again without pageToken", Details: details}
	}
	return c.offset, nil
}

// queryKey identifies a query: the digest of its JSON without the token.
func queryKey(v any) string {
	b, _ := json.Marshal(v)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

// generation identifies the index's content: the digest of every indexed
// file's path and content hash. Any change, addition or removal gives
// another generation.
func (r *kastRequest) generation() (string, error) {
	files, err := r.kr.ws.Index.Files()
	if err != nil {
		return "", err
	}
	slices.SortFunc(files, func(a, b storageFile) int {
		switch {
		case a.Path < b.Path:
			return -1
		case a.Path > b.Path:
			return 1
		}
		return 0
	})
	h := sha256.New()
	for _, f := range files {
		h.Write([]byte(f.Path + "\x00" + f.Hash + "\n"))
	}
	return hex.EncodeToString(h.Sum(nil)[:12]), nil
}

// paginate returns one page of items: from the token's offset (or the
// start), at most limit, with the token of the next page when more remain.
// query is the request with its token cleared.
func paginate[T any](k *Service, r *kastRequest, method string, query any, token *string, items []T, limit int) ([]T, *pageInfo, error) {
	start := 0
	key := queryKey(query)
	var gen string
	if token != nil || len(items) > limit {
		var err error
		if gen, err = r.generation(); err != nil {
			return nil, nil, err
		}
	}
	if token != nil {
		var err error
		if start, err = k.pages.take(*token, method, key, gen); err != nil {
			return nil, nil, err
		}
	}
	start = min(start, len(items))
	end := min(start+limit, len(items))
	var page *pageInfo
	if end < len(items) {
		next := k.pages.issue(pageCursor{method, key, gen, end})
		page = &pageInfo{Truncated: true, NextPageToken: &next}
	}
	return items[start:end], page, nil
}
