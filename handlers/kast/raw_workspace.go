package kast

// Workspace-wide listings: raw/file-outline, raw/workspace-symbol,
// raw/workspace-search and raw/workspace-files.

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/modules"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/search"
)

// --- raw/file-outline

type outlineQuery struct {
	FilePath *string `json:"filePath"`
}

func (q *outlineQuery) check() error {
	if q.FilePath == nil {
		return validation("Missing required field: filePath", nil)
	}
	return nil
}

type outlineSymbol struct {
	Symbol   kastSymbol       `json:"symbol"`
	Children []*outlineSymbol `json:"children"`
}

type outlineResult struct {
	Symbols       []*outlineSymbol `json:"symbols"`
	SchemaVersion int              `json:"schemaVersion"`
}

func (k *Service) fileOutline(ctx context.Context, q *outlineQuery) (outlineResult, error) {
	r, err := k.request(ctx, *q.FilePath)
	if err != nil {
		return outlineResult{}, err
	}
	path, err := r.path(*q.FilePath)
	if err != nil {
		return outlineResult{}, err
	}
	res := outlineResult{Symbols: []*outlineSymbol{}, SchemaVersion: kastSchemaVersion}
	f := r.snap.File(path)
	if f == nil {
		return res, nil
	}
	var stack []*outlineSymbol // the last item at each depth
	for _, it := range f.Outline() {
		sym, _ := r.symbol(resolve.DefID{Path: path, Index: it.Def}, symbolOpts{})
		n := &outlineSymbol{Symbol: sym, Children: []*outlineSymbol{}}
		stack = append(stack[:min(it.Depth, len(stack))], n)
		if len(stack) == 1 {
			res.Symbols = append(res.Symbols, n)
		} else {
			parent := stack[len(stack)-2]
			parent.Children = append(parent.Children, n)
		}
	}
	return res, nil
}

// --- raw/workspace-symbol

type workspaceSymbolQuery struct {
	Pattern                 *string `json:"pattern"`
	Kind                    *string `json:"kind"`
	MaxResults              *int    `json:"maxResults"`
	Regex                   bool    `json:"regex"`
	IncludeDeclarationScope bool    `json:"includeDeclarationScope"`
}

func (q *workspaceSymbolQuery) check() error {
	if q.Pattern == nil || strings.TrimSpace(*q.Pattern) == "" {
		return validation("pattern must not be blank", nil)
	}
	if q.Kind != nil && !naming.IsSymbolKind(*q.Kind) {
		return validation("Unknown symbol kind "+*q.Kind, map[string]string{"kind": *q.Kind})
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type workspaceSymbolResult struct {
	Symbols       []kastSymbol `json:"symbols"`
	Page          *pageInfo    `json:"page,omitempty"`
	SchemaVersion int          `json:"schemaVersion"`
}

func (k *Service) workspaceSymbol(ctx context.Context, q *workspaceSymbolQuery) (workspaceSymbolResult, error) {
	r, err := k.request(ctx, "")
	if err != nil {
		return workspaceSymbolResult{}, err
	}
	match := func(name string) bool { return strings.Contains(strings.ToLower(name), strings.ToLower(*q.Pattern)) }
	if q.Regex {
		re, err := regexp.Compile(*q.Pattern)
		if err != nil {
			return workspaceSymbolResult{}, validation("Invalid regular expression: "+err.Error(), map[string]string{"pattern": *q.Pattern})
		}
		match = re.MatchString
	}
	limit := valueOr(q.MaxResults, 100)
	res := workspaceSymbolResult{Symbols: []kastSymbol{}, SchemaVersion: kastSchemaVersion}
	for _, path := range r.snap.Files() {
		f := r.snap.File(path)
		if f == nil {
			continue
		}
		for _, it := range f.Outline() {
			d := f.Defs[it.Def]
			if !match(d.Name) || q.Kind != nil && naming.Kind(d.Kind) != *q.Kind {
				continue
			}
			if len(res.Symbols) == limit {
				res.Page = &pageInfo{Truncated: true}
				return res, nil
			}
			sym, _ := r.symbol(resolve.DefID{Path: path, Index: it.Def}, symbolOpts{scope: q.IncludeDeclarationScope})
			res.Symbols = append(res.Symbols, sym)
		}
	}
	return res, nil
}

// --- raw/workspace-search

type workspaceSearchQuery struct {
	Pattern       *string `json:"pattern"`
	Regex         bool    `json:"regex"`
	MaxResults    *int    `json:"maxResults"`
	FileGlob      *string `json:"fileGlob"`
	CaseSensitive *bool   `json:"caseSensitive"`
}

func (q *workspaceSearchQuery) check() error {
	if q.Pattern == nil || *q.Pattern == "" {
		return validation("pattern must not be empty", nil)
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type searchMatch struct {
	FilePath     string `json:"filePath"`
	LineNumber   int    `json:"lineNumber"`
	ColumnNumber int    `json:"columnNumber"`
	Preview      string `json:"preview"`
}

type workspaceSearchResult struct {
	Matches       []searchMatch `json:"matches"`
	Truncated     bool          `json:"truncated"`
	SchemaVersion int           `json:"schemaVersion"`
}

// workspaceSearch runs on the search engine, whose trigram index narrows the
// files before the regexp runs on them.
func (k *Service) workspaceSearch(ctx context.Context, q *workspaceSearchQuery) (workspaceSearchResult, error) {
	r, err := k.request(ctx, "")
	if err != nil {
		return workspaceSearchResult{}, err
	}
	rq := search.RegexQuery{Pattern: *q.Pattern, Fixed: !q.Regex, IgnoreCase: !valueOr(q.CaseSensitive, true)}
	if _, err := rq.Compile(); err != nil {
		return workspaceSearchResult{}, validation("Invalid regular expression: "+err.Error(), map[string]string{"pattern": *q.Pattern})
	}
	inGlob := func(string) bool { return true }
	if g := valueOr(q.FileGlob, ""); g != "" {
		if _, err := path.Match(g, ""); err != nil {
			return workspaceSearchResult{}, validation("Invalid file glob: "+err.Error(), map[string]string{"fileGlob": g})
		}
		// ** spans directories ("**/*.kt"): matched on the root-relative
		// path or, for a glob without a slash, the file name.
		re := graph.Glob(g)
		inGlob = func(p string) bool {
			rel, err := filepath.Rel(r.root, p)
			return err == nil && (re.MatchString(filepath.ToSlash(rel)) || re.MatchString(filepath.Base(p)))
		}
	}
	eng, err := k.pool.Search(r.root)
	if err != nil {
		return workspaceSearchResult{}, err
	}
	if _, err := eng.Refresh(ctx, false, nil); err != nil {
		return workspaceSearchResult{}, err
	}
	found, err := eng.Regex(ctx, rq)
	if err != nil {
		return workspaceSearchResult{}, err
	}
	res := workspaceSearchResult{Matches: []searchMatch{}, SchemaVersion: kastSchemaVersion}
	limit := valueOr(q.MaxResults, 100)
	for _, m := range found.Lines {
		if !inGlob(m.Path) {
			continue
		}
		if len(res.Matches) == limit {
			res.Truncated = true
			break
		}
		res.Matches = append(res.Matches, searchMatch{m.Path, m.Line, m.Matches[0][0] + 1, strings.TrimRight(m.Text, " \t\r\n")})
	}
	return res, nil
}

// --- raw/workspace-files

type workspaceFilesQuery struct {
	ModuleName        *string `json:"moduleName"`
	IncludeFiles      bool    `json:"includeFiles"`
	MaxFilesPerModule *int    `json:"maxFilesPerModule"`
	// Kast's later catalog: paging (continuation.go).
	KindDomain    *string `json:"kindDomain,omitempty"`
	SnapshotToken *string `json:"snapshotToken,omitempty"`
	PageToken     *string `json:"pageToken,omitempty"`
}

// paged reports a later-catalog request, answered with its tokens.
func (q *workspaceFilesQuery) paged() bool {
	return q.KindDomain != nil || q.SnapshotToken != nil || q.PageToken != nil
}

func (q *workspaceFilesQuery) check() error {
	if m := q.MaxFilesPerModule; m != nil && (*m < 1 || *m > kastMaxResults) {
		return validation(fmt.Sprintf("maxFilesPerModule must be between 1 and %d", kastMaxResults), map[string]string{"maxFilesPerModule": fmt.Sprint(*m)})
	}
	if d := q.KindDomain; d != nil && kindDomains[*d] == nil {
		return validation("kindDomain must be SOURCE_ONLY, SCRIPT_ONLY or MIXED", map[string]string{"kindDomain": *d})
	}
	if q.PageToken != nil && (q.ModuleName == nil || !q.IncludeFiles || q.SnapshotToken == nil) {
		return validation("a file page needs moduleName, includeFiles and snapshotToken", nil)
	}
	return nil
}

type workspaceModule struct {
	Name                  string   `json:"name"`
	SourceRoots           []string `json:"sourceRoots"`
	DependencyModuleNames []string `json:"dependencyModuleNames"`
	Files                 []string `json:"files"`
	FilesTruncated        bool     `json:"filesTruncated"`
	FileCount             int      `json:"fileCount"`
	// Later catalog, paged requests only.
	ReturnedFileCount *int    `json:"returnedFileCount,omitempty"`
	NextPageToken     *string `json:"nextPageToken,omitempty"`
}

type workspaceFilesResult struct {
	Modules       []workspaceModule `json:"modules"`
	KindDomain    *string           `json:"kindDomain,omitempty"`
	SnapshotToken *string           `json:"snapshotToken,omitempty"`
	SchemaVersion int               `json:"schemaVersion"`
}

// workspaceFiles lists the modules of the build model (the root as one
// module without one), each with its files.
func (k *Service) workspaceFiles(ctx context.Context, q *workspaceFilesQuery) (workspaceFilesResult, error) {
	r, err := k.request(ctx, "")
	if err != nil {
		return workspaceFilesResult{}, err
	}
	res := workspaceFilesResult{Modules: []workspaceModule{}, SchemaVersion: kastSchemaVersion}
	listed := modules.List(r.root, naming.RootModule(r.root), r.snap.Files())
	for _, l := range listed {
		if q.ModuleName != nil && *q.ModuleName != l.Name {
			continue
		}
		m := workspaceModule{Name: l.Name, SourceRoots: l.SourceRoots, DependencyModuleNames: l.Dependencies, Files: []string{}, FileCount: len(l.Files)}
		switch {
		case q.paged():
			// With several modules, a module's page tokens are bound to a
			// query naming it: a continuation names its module.
			mq := *q
			if len(listed) > 1 {
				mq.ModuleName = &l.Name
			}
			page, snap, next, err := k.pageFiles(r, &mq, l.Files)
			if err != nil {
				return workspaceFilesResult{}, err
			}
			res.SnapshotToken, res.KindDomain = &snap, q.KindDomain
			if q.IncludeFiles {
				m.Files, m.FilesTruncated, m.NextPageToken, m.ReturnedFileCount = page, next != nil, next, ptr(len(page))
			}
		case q.IncludeFiles:
			limit := valueOr(q.MaxFilesPerModule, kastMaxResults)
			m.Files = l.Files[:min(limit, len(l.Files))]
			m.FilesTruncated = len(l.Files) > limit
		}
		res.Modules = append(res.Modules, m)
	}
	return res, nil
}
