package kast

// Paging of raw/workspace-files (Kast's later catalog) and its internal
// raw/workspace-files-continuation method: server-held, one-use handles
// bound to their exact identity.

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"

	"github.com/kast-dev/kast/analysis/edit"
)

// kindDomains select the Kotlin files a page lists: sources, scripts or
// both; files of other languages count as sources.
var kindDomains = map[string]func(path string) bool{
	"SOURCE_ONLY": func(p string) bool { return !strings.HasSuffix(p, ".kts") },
	"SCRIPT_ONLY": func(p string) bool { return strings.HasSuffix(p, ".kts") },
	"MIXED":       func(string) bool { return true },
}

// snapshotToken is the reusable handle of an index generation: a page
// request naming an older one is refused.
func snapshotToken(generation string) string { return "kws1." + generation }

// pageFiles lists one page of a module's files for a later-catalog
// request, checking its snapshot token and claiming its page token.
func (k *Service) pageFiles(r *kastRequest, q *workspaceFilesQuery, files []string) (page []string, snap string, next *string, err error) {
	gen, err := r.generation()
	if err != nil {
		return nil, "", nil, err
	}
	snap = snapshotToken(gen)
	if q.SnapshotToken != nil && *q.SnapshotToken != snap {
		return nil, "", nil, &edit.Error{Kind: edit.Conflict, Msg: "The workspace changed since the snapshot token was issued; request the module inventory again",
			Details: map[string]string{"snapshotToken": *q.SnapshotToken, "reason": cursorStale}}
	}
	keep := kindDomains[valueOr(q.KindDomain, "MIXED")]
	var in []string
	for _, f := range files {
		if keep(f) {
			in = append(in, f)
		}
	}
	unpaged := *q
	unpaged.PageToken = nil
	page, info, err := paginate(k, r, "raw/workspace-files", unpaged, q.PageToken, in, valueOr(q.MaxFilesPerModule, kastMaxResults))
	if err != nil {
		return nil, "", nil, err
	}
	if info != nil {
		next = info.NextPageToken
	}
	return append([]string{}, page...), snap, next, nil
}

// --- raw/workspace-files-continuation

type continuationIdentity struct {
	WorkspaceRoot   string `json:"workspaceRoot"`
	BackendName     string `json:"backendName"`
	NormalizedQuery string `json:"normalizedQuery"`
	Projection      string `json:"projection"`
	Limit           *int   `json:"limit"`
}

type continuationState struct {
	Identity                *continuationIdentity `json:"identity"`
	CompositionStampDigest  string                `json:"compositionStampDigest"`
	LastRelativePath        string                `json:"lastRelativePath"`
	CumulativeReturnedCount int                   `json:"cumulativeReturnedCount"`
}

type continuationQuery struct {
	Action    string                `json:"action"`
	Identity  *continuationIdentity `json:"identity"`
	State     *continuationState    `json:"state,omitempty"`
	PageToken *string               `json:"pageToken,omitempty"`
}

func (q *continuationQuery) check() error {
	if q.Identity == nil || q.Identity.Limit == nil || q.Identity.WorkspaceRoot == "" {
		return validation("identity with workspaceRoot, backendName, normalizedQuery, projection and limit is required", nil)
	}
	switch {
	case q.Action == "ISSUE" && q.State != nil && q.PageToken == nil:
		if q.State.Identity == nil || !sameIdentity(q.State.Identity, q.Identity) {
			return validation("state.identity must be the request's identity", nil)
		}
	case q.Action == "CONSUME" && q.PageToken != nil && q.State == nil:
	default:
		return validation("action ISSUE takes identity and state, CONSUME takes identity and pageToken", map[string]string{"action": q.Action})
	}
	return nil
}

func sameIdentity(a, b *continuationIdentity) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

type continuationResult struct {
	Type      string             `json:"type"`
	PageToken *string            `json:"pageToken,omitempty"`
	State     *continuationState `json:"state,omitempty"`
}

// continuations holds issued states, one-use, bounded like page cursors.
type continuations struct {
	mu    sync.Mutex
	held  map[string]continuationState
	order []string
}

func (k *Service) filesContinuation(ctx context.Context, q *continuationQuery) (continuationResult, error) {
	r, err := k.request(ctx, "")
	if err != nil {
		return continuationResult{}, err
	}
	if filepath.Clean(q.Identity.WorkspaceRoot) != r.root || q.Identity.BackendName != kastBackendName {
		return continuationResult{}, validation("identity names another workspace or backend", map[string]string{"workspaceRoot": q.Identity.WorkspaceRoot})
	}
	c := &k.continuations
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.held == nil {
		c.held = map[string]continuationState{}
	}
	if q.Action == "ISSUE" {
		token := requestID()
		c.held[token] = *q.State
		c.order = append(c.order, token)
		for len(c.order) > maxHeldPages {
			delete(c.held, c.order[0])
			c.order = c.order[1:]
		}
		return continuationResult{Type: "ISSUED", PageToken: &token}, nil
	}
	st, ok := c.held[*q.PageToken]
	if !ok || !sameIdentity(st.Identity, q.Identity) {
		return continuationResult{}, &edit.Error{Kind: edit.Conflict, Msg: "Unknown, used, evicted or mismatched continuation handle",
			Details: map[string]string{"pageToken": *q.PageToken, "reason": cursorInvalid}}
	}
	delete(c.held, *q.PageToken)
	return continuationResult{Type: "CONSUMED", State: &st}, nil
}
