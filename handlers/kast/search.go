package kast

// search/regex: the whole grep query of `kast search`, so that the CLI asks
// a running daemon, whose index is warm and watched, rather than building
// one of its own (the daemon holds the index's lock).

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/search"
)

type regexSearchQuery struct {
	Pattern    *string `json:"pattern"`
	IgnoreCase bool    `json:"ignoreCase"`
	WholeWord  bool    `json:"wholeWord"`
	Fixed      bool    `json:"fixed"`
	Multiline  bool    `json:"multiline"`
	Before     int     `json:"before"`
	After      int     `json:"after"`
	// Paths are files or folders inside the workspace (absolute, or
	// relative to its root); none means the whole workspace.
	Paths   []string `json:"paths"`
	Include []string `json:"include"`
	Exclude []string `json:"exclude"`
	Filter  struct {
		NoIgnore   bool     `json:"noIgnore"`
		SkipHidden bool     `json:"skipHidden"`
		Ckignore   bool     `json:"ckignore"`
		Excludes   []string `json:"excludes"` // null: the default excludes
	} `json:"filter"`
	// WithSearched lists every file searched (for files-without-match).
	WithSearched bool `json:"withSearched"`
	// Root is the workspace to search, as this server spells it: a language
	// server may hold several. It must be open here; none means the
	// server's only (or first) one.
	Root string `json:"root"`
}

func (q *regexSearchQuery) check() error {
	if q.Pattern == nil {
		return validation("Missing required field: pattern", nil)
	}
	for name, v := range map[string]int{"before": q.Before, "after": q.After} {
		if v < 0 {
			return validation(name+" must not be negative", map[string]string{name: fmt.Sprint(v)})
		}
	}
	return nil
}

type skippedFile struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

type regexSearchResult struct {
	Lines         []search.LineMatch `json:"lines"`
	Files         []string           `json:"files"`
	Searched      []string           `json:"searched,omitempty"`
	Skipped       []skippedFile      `json:"skipped"`
	Binary        int                `json:"binary"`
	Candidates    int                `json:"candidates"`
	WorkspaceRoot string             `json:"workspaceRoot"`
	SchemaVersion int                `json:"schemaVersion"`
}

func (k *Service) regexSearch(ctx context.Context, q *regexSearchQuery) (regexSearchResult, error) {
	if q.Root != "" && k.rootFor(q.Root) != filepath.Clean(q.Root) {
		return regexSearchResult{}, validation("The workspace "+q.Root+" is not open on this server", map[string]string{"root": q.Root})
	}
	r, err := k.request(ctx, q.Root)
	if err != nil {
		return regexSearchResult{}, err
	}
	sq := search.RegexQuery{Pattern: *q.Pattern, IgnoreCase: q.IgnoreCase, WholeWord: q.WholeWord, Fixed: q.Fixed,
		Multiline: q.Multiline, Before: q.Before, After: q.After,
		Scope: search.Scope{Include: q.Include, Exclude: q.Exclude, Filter: search.Filter{NoIgnore: q.Filter.NoIgnore,
			SkipHidden: q.Filter.SkipHidden, Ckignore: q.Filter.Ckignore, Excludes: q.Filter.Excludes}}}
	for _, p := range q.Paths {
		if !filepath.IsAbs(p) {
			p = filepath.Join(r.root, p)
		}
		real, err := r.confine(p, confine.Read)
		if err != nil {
			return regexSearchResult{}, err
		}
		sq.Scope.Paths = append(sq.Scope.Paths, real)
	}
	eng, err := k.pool.Search(r.root)
	if err != nil {
		return regexSearchResult{}, err
	}
	if _, err := eng.Refresh(ctx, false, nil); err != nil {
		return regexSearchResult{}, err
	}
	found, err := eng.Regex(ctx, sq)
	if err != nil {
		var re *search.RegexError
		if errors.As(err, &re) {
			return regexSearchResult{}, validation(re.Error(), map[string]string{"pattern": *q.Pattern})
		}
		return regexSearchResult{}, err
	}
	res := regexSearchResult{Lines: found.Lines, Files: found.Files, Skipped: []skippedFile{}, Binary: found.Binary,
		Candidates: found.Candidates, WorkspaceRoot: r.root, SchemaVersion: kastSchemaVersion}
	if res.Lines == nil {
		res.Lines = []search.LineMatch{}
	}
	if res.Files == nil {
		res.Files = []string{}
	}
	if q.WithSearched {
		res.Searched = found.Searched
	}
	for _, s := range found.Skipped {
		res.Skipped = append(res.Skipped, skippedFile{s.Path, s.Reason})
	}
	return res, nil
}
