package main

import (
	"cmp"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis/search"
)

// A regex search asks the workspace's running daemon (kast serve, else a
// listening kast lsp holding the workspace: lsp_register.go) when one
// answers: its index is warm and watched, and it holds the index's lock, so
// a search of its own would build a temporary index in memory. None
// running, one of another version (it may not know the method, or answer
// differently), or any failure of the call: the CLI searches itself.

// regexResultWire is search/regex's result (handlers/kast/search.go).
type regexResultWire struct {
	Lines    []search.LineMatch `json:"lines"`
	Files    []string           `json:"files"`
	Searched []string           `json:"searched"`
	Skipped  []struct {
		Path   string `json:"path"`
		Reason string `json:"reason"`
	} `json:"skipped"`
	Binary        int    `json:"binary"`
	Candidates    int    `json:"candidates"`
	WorkspaceRoot string `json:"workspaceRoot"`
}

// regexViaDaemon returns the daemon's answer to q over root, or false.
func regexViaDaemon(root string, q search.RegexQuery, withSearched bool, logger *slog.Logger) (*search.RegexResult, bool) {
	droot, err := daemonRoot(root)
	if err != nil {
		return nil, false
	}
	d, call, kind, ok := findSearcher(droot, logger)
	if !ok {
		return nil, false
	}
	// Paths go in the daemon's spelling of the root (symlinks resolved),
	// and come back in ours.
	served := cmp.Or(d.WorkspaceRoot, droot)
	toDaemon := func(p string) string { return swapRoot(p, root, served) }
	paths := make([]string, 0, len(q.Scope.Paths))
	for _, p := range q.Scope.Paths {
		paths = append(paths, toDaemon(p))
	}
	f := q.Scope.Filter
	params, _ := json.Marshal(map[string]any{
		"pattern": q.Pattern, "ignoreCase": q.IgnoreCase, "wholeWord": q.WholeWord, "fixed": q.Fixed,
		"multiline": q.Multiline, "before": q.Before, "after": q.After,
		"paths": paths, "include": q.Scope.Include, "exclude": q.Scope.Exclude,
		"filter":       map[string]any{"noIgnore": f.NoIgnore, "skipHidden": f.SkipHidden, "ckignore": f.Ckignore, "excludes": f.Excludes},
		"withSearched": withSearched, "root": served,
	})
	resp, err := call(d, "search/regex", params)
	if err == nil && resp.Error != nil {
		logger.Debug("search: the daemon refused; searching here", "code", resp.Error.Code, "message", resp.Error.Message)
		return nil, false
	}
	var w regexResultWire
	if err == nil {
		err = json.Unmarshal(resp.Result, &w)
	}
	if err != nil {
		logger.Debug("search: the daemon did not answer; searching here", "err", err)
		return nil, false
	}
	back := func(p string) string { return swapRoot(p, cmp.Or(w.WorkspaceRoot, served), root) }
	res := &search.RegexResult{Lines: w.Lines, Binary: w.Binary, Candidates: w.Candidates}
	for i := range res.Lines {
		res.Lines[i].Path = back(res.Lines[i].Path)
	}
	for _, p := range w.Files {
		res.Files = append(res.Files, back(p))
	}
	for _, p := range w.Searched {
		res.Searched = append(res.Searched, back(p))
	}
	for _, s := range w.Skipped {
		res.Skipped = append(res.Skipped, search.SkipError{Path: back(s.Path), Reason: s.Reason})
	}
	logger.Debug("search: answered by the daemon", "pid", d.PID, "server", kind, "lines", len(res.Lines))
	return res, true
}

// searcher is how a daemon is called: rpcCall for the Kast API's daemons,
// lspCall for a language server.
type searcher func(d descriptor, method string, params json.RawMessage) (*rpcResponse, error)

// findSearcher returns a process of this version serving root that
// answers: kast serve first (its descriptor, then Kast's registry), then a
// listening kast lsp.
func findSearcher(droot string, logger *slog.Logger) (d descriptor, call searcher, kind string, ok bool) {
	dir, err := runtimeDirPath() // a lookup: nothing is created
	if err != nil {
		return descriptor{}, nil, "", false
	}
	try := func(d descriptor, k string) bool {
		if d.BackendVersion != kastVersion() {
			logger.Debug("search: the daemon is another version; searching here", "daemon", d.BackendVersion, "cli", kastVersion())
			return false
		}
		kind = k
		return true
	}
	d, up, _ := live(descriptorPath(dir, droot))
	if !up { // Kast's registry may list the same daemon: asked only once
		d, up = kastDaemon(droot)
	}
	if up && try(d, "kast serve") {
		return d, rpcCall, kind, true
	}
	for _, path := range lspDescriptors(dir, droot) {
		if d, up, _ := live(path); up && try(d, "kast lsp") {
			return d, lspCall, kind, true
		}
	}
	return descriptor{}, nil, "", false
}

// swapRoot rewrites p from under root from to under root to.
func swapRoot(p, from, to string) string {
	if from == to {
		return p
	}
	if rel, err := filepath.Rel(from, p); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.Join(to, rel)
	}
	return p
}
