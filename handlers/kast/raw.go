package kast

import (
	"cmp"
	"context"
	"fmt"
	"github.com/kast-dev/kast/analysis/semantic"
	"slices"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/complete"
	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// at validates a position request and resolves the symbol there.
func (k *Service) at(ctx context.Context, p *filePosition) (*kastRequest, resolve.DefID, string, int, error) {
	r, err := k.request(ctx, p.FilePath)
	if err != nil {
		return nil, resolve.DefID{}, "", 0, err
	}
	path, offset, _, err := r.position(p)
	if err != nil {
		return nil, resolve.DefID{}, "", 0, err
	}
	for _, c := range r.snap.Resolver().DefinitionAt(path, offset) {
		if !c.Uncertain {
			return r, c.Def, path, offset, nil
		}
	}
	return nil, resolve.DefID{}, "", 0, notFound("No resolvable symbol was found at the requested offset",
		map[string]string{"filePath": path, "offset": fmt.Sprint(offset)})
}

// positional is embedded by every position request.
type positional struct {
	Position *filePosition `json:"position"`
}

func (p *positional) check() error { return p.Position.check() }

// bounded checks a result count against Kast's server limit.
func bounded(name string, v int) error {
	if v < 1 || v > kastMaxResults {
		return validation(fmt.Sprintf("%s must be between 1 and %d", name, kastMaxResults), map[string]string{name: fmt.Sprint(v)})
	}
	return nil
}

func positive(name string, v int) error {
	if v < 1 {
		return validation(name+" must be at least 1", map[string]string{name: fmt.Sprint(v)})
	}
	return nil
}

// --- raw/resolve

type resolveQuery struct {
	positional
	IncludeDeclarationScope bool `json:"includeDeclarationScope"`
	IncludeDocumentation    bool `json:"includeDocumentation"`
}

type symbolResult struct {
	Symbol        kastSymbol `json:"symbol"`
	SchemaVersion int        `json:"schemaVersion"`
}

func (k *Service) resolve(ctx context.Context, q *resolveQuery) (symbolResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return symbolResult{}, err
	}
	sym, _ := r.symbol(def, symbolOpts{scope: q.IncludeDeclarationScope, docs: q.IncludeDocumentation})
	return symbolResult{sym, kastSchemaVersion}, nil
}

// --- raw/references

type referencesQuery struct {
	positional
	IncludeDeclaration    bool    `json:"includeDeclaration"`
	IncludeUsageSiteScope bool    `json:"includeUsageSiteScope"`
	MaxResults            *int    `json:"maxResults,omitempty"`
	PageToken             *string `json:"pageToken,omitempty"`
}

func (q *referencesQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.MaxResults != nil {
		return bounded("maxResults", *q.MaxResults)
	}
	return nil
}

// unpaged is the query a page token is bound to.
func (q referencesQuery) unpaged() referencesQuery {
	q.PageToken = nil
	return q
}

type referencesResult struct {
	Declaration   *kastSymbol    `json:"declaration,omitempty"`
	References    []kastLocation `json:"references"`
	Page          *pageInfo      `json:"page,omitempty"`
	SearchScope   *searchScope   `json:"searchScope,omitempty"`
	SchemaVersion int            `json:"schemaVersion"`
}

func (k *Service) references(ctx context.Context, q *referencesQuery) (referencesResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return referencesResult{}, err
	}
	res := referencesResult{References: []kastLocation{}, SchemaVersion: kastSchemaVersion}
	exhaustive := true
	searched := map[string]bool{}
	if resolve.IsPredeclared(r.snap, def) {
		exhaustive = false // a builtin's uses are everywhere: not searched
	}
	for _, ref := range navigate.ReferencesOf(r.snap, def) {
		searched[ref.Ref.Path] = true
		if ref.Uncertain {
			exhaustive = false
			continue
		}
		if ref.Ambiguous {
			// Listed, but it may be another overload's call: the list is
			// not known to be exactly this declaration's uses.
			exhaustive = false
		}
		loc := r.location(ref.Ref.Path, ref.Span)
		if q.IncludeUsageSiteScope {
			if f := r.snap.File(ref.Ref.Path); f != nil {
				if e := f.Refs[ref.Ref.Index].Enclosing; e != analysis.None {
					loc.UsageSiteScope = r.scope(ref.Ref.Path, f.Defs[e].FullSpan, false)
				}
			}
		}
		res.References = append(res.References, loc)
	}
	sortLocations(res.References)
	if res.References, res.Page, err = paginate(k, r, "raw/references", q.unpaged(), q.PageToken, res.References, valueOr(q.MaxResults, kastMaxResults)); err != nil {
		return referencesResult{}, err
	}
	sym, _ := r.symbol(def, symbolOpts{})
	if q.IncludeDeclaration {
		res.Declaration = &sym
	}
	res.SearchScope = scopeOf(sym, exhaustive, len(searched))
	return res, nil
}

// scopeOf is where references of sym were looked for: its file for private
// and local declarations, the workspace otherwise.
func scopeOf(sym kastSymbol, exhaustive bool, files int) *searchScope {
	vis := "UNKNOWN"
	if sym.Visibility != nil {
		vis = *sym.Visibility
	}
	scope := "DEPENDENT_MODULES"
	if vis == "PRIVATE" || vis == "LOCAL" {
		scope = "FILE"
	}
	return &searchScope{Visibility: vis, Scope: scope, Exhaustive: exhaustive, CandidateFileCount: files, SearchedFileCount: files}
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// --- raw/semantic-insertion-point

type insertionQuery struct {
	positional
	Target *string `json:"target"`
}

func (q *insertionQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.Target == nil {
		return validation("Missing required field: target", nil)
	}
	if !slices.Contains([]string{"CLASS_BODY_START", "CLASS_BODY_END", "FILE_TOP", "FILE_BOTTOM", "AFTER_IMPORTS"}, *q.Target) {
		return validation("Unknown insertion target "+*q.Target, map[string]string{"target": *q.Target})
	}
	return nil
}

type insertionResult struct {
	InsertionOffset int    `json:"insertionOffset"`
	FilePath        string `json:"filePath"`
	SchemaVersion   int    `json:"schemaVersion"`
}

func (k *Service) insertionPoint(ctx context.Context, q *insertionQuery) (insertionResult, error) {
	r, err := k.request(ctx, q.Position.FilePath)
	if err != nil {
		return insertionResult{}, err
	}
	path, offset, text, err := r.position(q.Position)
	if err != nil {
		return insertionResult{}, err
	}
	f := r.snap.File(path)
	if f == nil {
		return insertionResult{}, notFound("kast has no facts for this file", map[string]string{"filePath": path})
	}
	at, ok := edit.InsertionPoint(f, text, offset, *q.Target)
	if !ok {
		return insertionResult{}, notFound("No class body encloses the requested offset", map[string]string{"filePath": path, "offset": fmt.Sprint(offset)})
	}
	return insertionResult{at, path, kastSchemaVersion}, nil
}

// --- raw/diagnostics

type filesQuery struct {
	FilePaths *[]string `json:"filePaths"`
}

func (q *filesQuery) check() error {
	if q.FilePaths == nil || len(*q.FilePaths) == 0 {
		return validation("filePaths must list at least one file", nil)
	}
	return nil
}

// diagnosticsQuery adds the later catalog's paging to a files query.
type diagnosticsQuery struct {
	filesQuery
	MaxResults *int    `json:"maxResults,omitempty"`
	PageToken  *string `json:"pageToken,omitempty"`
}

func (q *diagnosticsQuery) check() error {
	if err := q.filesQuery.check(); err != nil {
		return err
	}
	if q.MaxResults != nil {
		return bounded("maxResults", *q.MaxResults)
	}
	return nil
}

type kastDiagnostic struct {
	Location kastLocation `json:"location"`
	Severity string       `json:"severity"`
	Message  string       `json:"message"`
	Code     *string      `json:"code,omitempty"`
}

type diagnosticsResult struct {
	Diagnostics   []kastDiagnostic `json:"diagnostics"`
	Page          *pageInfo        `json:"page,omitempty"`
	SchemaVersion int              `json:"schemaVersion"`
	checksRun     []string         // the checks that ran to the end: syntax, kast's own, toolchains
}

// paths validates a list of request paths against one request.
func (k *Service) paths(ctx context.Context, list []string) (*kastRequest, []string, error) {
	r, err := k.request(ctx, list[0])
	if err != nil {
		return nil, nil, err
	}
	var out []string
	for _, p := range list {
		path, err := r.path(p)
		if err != nil {
			return nil, nil, err
		}
		out = append(out, path)
	}
	slices.Sort(out)
	return r, slices.Compact(out), nil
}

func (k *Service) diagnostics(ctx context.Context, q *diagnosticsQuery) (diagnosticsResult, error) {
	r, paths, err := k.paths(ctx, *q.FilePaths)
	if err != nil {
		return diagnosticsResult{}, err
	}
	res := diagnosticsResult{Diagnostics: []kastDiagnostic{}, SchemaVersion: kastSchemaVersion}
	code := "SYNTAX_ERROR"
	parsed := []string{} // toolchains check what parses: on the rest they only repeat the syntax error
	for _, path := range paths {
		f := r.snap.File(path)
		if f == nil {
			continue
		}
		for _, e := range f.Errors {
			res.Diagnostics = append(res.Diagnostics, kastDiagnostic{r.location(path, e.Span), "ERROR", e.Message, &code})
		}
		if len(f.Errors) == 0 {
			parsed = append(parsed, path)
		}
	}
	res.checksRun = []string{"syntax"}
	own, ran := r.semanticDiagnostics(ctx, parsed)
	if ran {
		res.checksRun = append(res.checksRun, semantic.Source)
	}
	toolchain, tools := r.toolchainDiagnostics(ctx, parsed)
	res.checksRun = append(res.checksRun, tools...)
	res.Diagnostics = append(res.Diagnostics, withoutRepeats(own, toolchain)...)
	res.Diagnostics = append(res.Diagnostics, toolchain...)
	unpaged := *q
	unpaged.PageToken = nil
	res.Diagnostics, res.Page, err = paginate(k, r, "raw/diagnostics", unpaged, q.PageToken, res.Diagnostics, valueOr(q.MaxResults, kastMaxResults))
	return res, err
}

// --- raw/implementations

type implementationsQuery struct {
	positional
	MaxResults *int `json:"maxResults"`
}

func (q *implementationsQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type implementationsResult struct {
	Declaration     kastSymbol   `json:"declaration"`
	Implementations []kastSymbol `json:"implementations"`
	Exhaustive      bool         `json:"exhaustive"`
	SchemaVersion   int          `json:"schemaVersion"`
}

func (k *Service) implementations(ctx context.Context, q *implementationsQuery) (implementationsResult, error) {
	r, def, path, offset, err := k.at(ctx, q.Position)
	if err != nil {
		return implementationsResult{}, err
	}
	decl, _ := r.symbol(def, symbolOpts{})
	res := implementationsResult{Declaration: decl, Implementations: []kastSymbol{}, Exhaustive: true, SchemaVersion: kastSchemaVersion}
	limit := valueOr(q.MaxResults, 100)
	for _, s := range navigate.Implementation(r.snap, path, offset) {
		if len(res.Implementations) == limit {
			res.Exhaustive = false
			break
		}
		if sym, ok := r.symbol(s.Def, symbolOpts{}); ok {
			res.Implementations = append(res.Implementations, sym)
		}
	}
	return res, nil
}

// --- raw/completions

type completionsQuery struct {
	positional
	MaxResults *int      `json:"maxResults"`
	KindFilter *[]string `json:"kindFilter"`
}

func (q *completionsQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.KindFilter != nil {
		for _, kind := range *q.KindFilter {
			if !naming.IsSymbolKind(kind) {
				return validation("Unknown symbol kind "+kind, map[string]string{"kindFilter": kind})
			}
		}
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type completionItem struct {
	Name   string  `json:"name"`
	FqName string  `json:"fqName"`
	Kind   string  `json:"kind"`
	Type   *string `json:"type,omitempty"`
}

type completionsResult struct {
	Items         []completionItem `json:"items"`
	Exhaustive    bool             `json:"exhaustive"`
	SchemaVersion int              `json:"schemaVersion"`
}

func (k *Service) completions(ctx context.Context, q *completionsQuery) (completionsResult, error) {
	r, err := k.request(ctx, q.Position.FilePath)
	if err != nil {
		return completionsResult{}, err
	}
	path, offset, text, err := r.position(q.Position)
	if err != nil {
		return completionsResult{}, err
	}
	res := completionsResult{Items: []completionItem{}, Exhaustive: true, SchemaVersion: kastSchemaVersion}
	seen := map[[3]string]bool{}
	for _, it := range complete.Complete(r.snap, path, offset, text).Items {
		if it.Keyword || it.Def.Path == "" {
			continue
		}
		f := r.snap.File(it.Def.Path)
		if f == nil || it.Def.Index < 0 || int(it.Def.Index) >= len(f.Defs) {
			continue
		}
		item := completionItem{Name: it.Label, FqName: naming.FQName(r.root, f, it.Def.Index), Kind: naming.Kind(it.Kind)}
		if q.KindFilter != nil && !slices.Contains(*q.KindFilter, item.Kind) {
			continue
		}
		key := [3]string{item.FqName, item.Kind, item.Name}
		if seen[key] {
			continue
		}
		seen[key] = true
		if t := f.Defs[it.Def.Index].TypeName; t != "" {
			item.Type = &t
		}
		res.Items = append(res.Items, item)
	}
	slices.SortFunc(res.Items, func(a, b completionItem) int {
		return cmp.Or(cmp.Compare(a.Name, b.Name), cmp.Compare(a.FqName, b.FqName))
	})
	if limit := valueOr(q.MaxResults, 100); len(res.Items) > limit {
		res.Items, res.Exhaustive = res.Items[:limit], false
	}
	return res, nil
}
