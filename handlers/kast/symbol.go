package kast

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/symbolquery"
)

// symbol/*: name-based orchestration over the raw methods. Outcomes are
// successful responses typed <X>_SUCCESS or <X>_FAILURE; validation errors
// stay JSON-RPC errors, as in Kast's SkillRpcOrchestrator.

// kastLogFile is Kast's placeholder: no per-request log exists.
const kastLogFile = "/dev/null"

// selector names a declaration by simple name, with hints.
type selector struct {
	WorkspaceRoot  *string `json:"workspaceRoot,omitempty"`
	Symbol         *string `json:"symbol,omitempty"`
	FileHint       *string `json:"fileHint,omitempty"`
	Kind           *string `json:"kind,omitempty"`
	ContainingType *string `json:"containingType,omitempty"`
}

func (s *selector) check() error {
	if s.Symbol == nil || strings.TrimSpace(*s.Symbol) == "" {
		return validation("symbol must not be blank", nil)
	}
	return checkKind(s.Kind)
}

func checkKind(kind *string) error {
	if kind != nil && naming.RequestKind(*kind) == "" {
		return validation("kind must be one of class, interface, object, function, property", map[string]string{"kind": *kind})
	}
	return nil
}

// symbolRequest opens the request for a workspaceRoot (the daemon's when
// absent) and fills it in, as Kast echoes it.
func (k *Service) symbolRequest(ctx context.Context, root **string, path string) (*kastRequest, error) {
	if *root != nil {
		if !filepath.IsAbs(**root) {
			return nil, validation("File paths must be absolute", map[string]string{"filePath": **root})
		}
		if k.fixedRoot != "" && filepath.Clean(**root) != k.fixedRoot {
			return nil, validation("This daemon serves "+k.fixedRoot, map[string]string{"workspaceRoot": **root})
		}
		if path == "" {
			path = filepath.Clean(**root)
		}
	}
	r, err := k.request(ctx, path)
	if err != nil {
		return nil, err
	}
	*root = &r.root
	return r, nil
}

// candidates ranks the declarations the selector may mean, best first,
// with hints of a line and the code on it.
func (r *kastRequest) candidates(ctx context.Context, s *selector, line *int, snippet *string) ([]symbolquery.Candidate, error) {
	text := func(path string) []byte { t, _ := r.text(path); return t }
	return symbolquery.Candidates(ctx, r.snap, r.root, text, symbolquery.Selector{Name: *s.Symbol, Kind: valueOr(s.Kind, ""),
		ContainingType: valueOr(s.ContainingType, ""), FileHint: valueOr(s.FileHint, ""), Line: line, Snippet: snippet})
}

// apiErrorBody is an ApiErrorResponse, carried by FAILURE results.
type apiErrorBody struct {
	SchemaVersion int               `json:"schemaVersion"`
	RequestID     string            `json:"requestId"`
	Code          string            `json:"code"`
	Message       string            `json:"message"`
	Retryable     bool              `json:"retryable"`
	Details       map[string]string `json:"details"`
}

type symbolFailure struct {
	Type    string        `json:"type"`
	OK      bool          `json:"ok"`
	Stage   string        `json:"stage"`
	Message string        `json:"message"`
	Query   any           `json:"query"`
	LogFile string        `json:"logFile"`
	Error   *apiErrorBody `json:"error,omitempty"`
}

// failed turns an engine error into a <X>_FAILURE result; validation and
// internal errors stay JSON-RPC errors.
func failed(kind, stage string, query any, err error) (any, error) {
	var ke *edit.Error
	if !errors.As(err, &ke) || ke.Kind == edit.Validation {
		return nil, err
	}
	code := map[edit.Kind]string{edit.NotFound: "NOT_FOUND", edit.Conflict: "CONFLICT", edit.PartialFailure: "APPLY_PARTIAL_FAILURE"}[ke.Kind]
	details := ke.Details
	if details == nil {
		details = map[string]string{}
	}
	return symbolFailure{kind + "_FAILURE", false, stage, ke.Msg, query, kastLogFile,
		&apiErrorBody{kastSchemaVersion, requestID(), code, ke.Msg, false, details}}, nil
}

func notFoundFailure(kind string, query any, name string) (any, error) {
	return failed(kind, "resolve", query, notFound("No declaration named "+name+" was found", map[string]string{"symbol": name}))
}

// --- symbol/resolve

type symbolResolveQuery struct {
	selector
	IncludeDeclarationScope   bool `json:"includeDeclarationScope"`
	IncludeDocumentation      bool `json:"includeDocumentation"`
	SurroundingLines          *int `json:"surroundingLines,omitempty"`
	IncludeSurroundingMembers bool `json:"includeSurroundingMembers"`
}

func (q *symbolResolveQuery) check() error {
	if err := q.selector.check(); err != nil {
		return err
	}
	if n := q.SurroundingLines; n != nil && (*n < 0 || *n > 50) {
		return validation("surroundingLines must be between 0 and 50", map[string]string{"surroundingLines": fmt.Sprint(*n)})
	}
	return nil
}

type resolvedCandidate struct {
	Line    int    `json:"line"`
	Column  int    `json:"column"`
	Context string `json:"context"`
}

type surroundingText struct {
	FilePath  string `json:"filePath"`
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Text      string `json:"text"`
}

type resolveContext struct {
	SurroundingText    *surroundingText `json:"surroundingText,omitempty"`
	SurroundingMembers []kastSymbol     `json:"surroundingMembers,omitempty"`
}

type symbolResolveSuccess struct {
	Type           string              `json:"type"`
	OK             bool                `json:"ok"`
	Query          *symbolResolveQuery `json:"query"`
	Symbol         kastSymbol          `json:"symbol"`
	FilePath       string              `json:"filePath"`
	Offset         int                 `json:"offset"`
	Candidate      resolvedCandidate   `json:"candidate"`
	CandidateCount *int                `json:"candidateCount,omitempty"`
	Alternatives   []string            `json:"alternatives,omitempty"`
	Context        *resolveContext     `json:"context,omitempty"`
	SelectorHandle string              `json:"selectorHandle"`
	LogFile        string              `json:"logFile"`
}

func (k *Service) symbolResolve(ctx context.Context, q *symbolResolveQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	cs, err := r.candidates(ctx, &q.selector, nil, nil)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return notFoundFailure("RESOLVE", q, *q.Symbol)
	}
	best, count, alts := symbolquery.Pick(cs)
	sym, _ := r.symbol(best.ID, symbolOpts{scope: q.IncludeDeclarationScope, docs: q.IncludeDocumentation})
	loc := sym.Location
	res := symbolResolveSuccess{Type: "RESOLVE_SUCCESS", OK: true, Query: q, Symbol: sym, FilePath: loc.FilePath, Offset: loc.StartOffset,
		Candidate: resolvedCandidate{loc.StartLine, loc.StartColumn, loc.Preview}, CandidateCount: count, Alternatives: alts, LogFile: kastLogFile,
		SelectorHandle: k.handleFor(r, sym)}
	if q.SurroundingLines != nil || q.IncludeSurroundingMembers {
		res.Context = &resolveContext{}
	}
	if n := q.SurroundingLines; n != nil {
		text, _ := r.text(loc.FilePath)
		lines := strings.SplitAfter(string(text), "\n")
		from, to := max(loc.StartLine-*n, 1), min(loc.StartLine+*n, len(lines))
		res.Context.SurroundingText = &surroundingText{loc.FilePath, from, to, strings.Join(lines[from-1:to], "")}
	}
	if q.IncludeSurroundingMembers {
		f := r.snap.File(best.ID.Path)
		for _, it := range f.Outline() {
			if it.Def != best.ID.Index && f.Defs[it.Def].Container == f.Defs[best.ID.Index].Container {
				m, _ := r.symbol(resolve.DefID{Path: best.ID.Path, Index: it.Def}, symbolOpts{})
				res.Context.SurroundingMembers = append(res.Context.SurroundingMembers, m)
			}
		}
	}
	return res, nil
}

// --- symbol/discover

type symbolDiscoverQuery struct {
	selector
	Line                    *int    `json:"line,omitempty"`
	CodeSnippet             *string `json:"codeSnippet,omitempty"`
	MaxResults              *int    `json:"maxResults,omitempty"`
	IncludeDeclarationScope bool    `json:"includeDeclarationScope"`
}

func (q *symbolDiscoverQuery) check() error {
	if err := q.selector.check(); err != nil {
		return err
	}
	if q.MaxResults == nil {
		q.MaxResults = ptr(10)
	}
	return bounded("maxResults", *q.MaxResults)
}

type resolveParams struct {
	WorkspaceRoot  string  `json:"workspaceRoot"`
	Symbol         string  `json:"symbol"`
	FileHint       string  `json:"fileHint"`
	Kind           *string `json:"kind,omitempty"`
	ContainingType *string `json:"containingType,omitempty"`
}

type nextRequest struct {
	Method string        `json:"method"`
	Params resolveParams `json:"params"`
}

type discoverCandidate struct {
	Rank          int           `json:"rank"`
	Confidence    float64       `json:"confidence"`
	Symbol        kastSymbol    `json:"symbol"`
	Reasons       []string      `json:"reasons"`
	ResolveParams resolveParams `json:"resolveParams"`
	NextRequest   nextRequest   `json:"nextRequest"`
}

type symbolDiscoverSuccess struct {
	Type       string               `json:"type"`
	OK         bool                 `json:"ok"`
	Query      *symbolDiscoverQuery `json:"query"`
	Candidates []discoverCandidate  `json:"candidates"`
	Page       *pageInfo            `json:"page,omitempty"`
	LogFile    string               `json:"logFile"`
}

func (k *Service) symbolDiscover(ctx context.Context, q *symbolDiscoverQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	cs, err := r.candidates(ctx, &q.selector, q.Line, q.CodeSnippet)
	if err != nil {
		return nil, err
	}
	if len(cs) == 0 {
		return notFoundFailure("DISCOVER", q, *q.Symbol)
	}
	res := symbolDiscoverSuccess{Type: "DISCOVER_SUCCESS", OK: true, Query: q, Candidates: []discoverCandidate{}, LogFile: kastLogFile}
	if len(cs) > *q.MaxResults {
		cs = cs[:*q.MaxResults]
		res.Page = &pageInfo{Truncated: true}
	}
	for i, c := range cs {
		sym, _ := r.symbol(c.ID, symbolOpts{scope: q.IncludeDeclarationScope})
		kind := strings.ToLower(sym.Kind)
		p := resolveParams{WorkspaceRoot: r.root, Symbol: r.snap.File(c.ID.Path).Defs[c.ID.Index].Name, FileHint: sym.Location.FilePath, ContainingType: sym.ContainingDeclaration}
		if naming.RequestKind(kind) != "" {
			p.Kind = &kind
		}
		res.Candidates = append(res.Candidates, discoverCandidate{i + 1, float64(c.Score) / 100, sym, c.Reasons, p, nextRequest{"symbol/resolve", p}})
	}
	return res, nil
}

// --- symbol/references

// symbolReferencesQuery is either form: v0.7's by name (selector) or the
// later catalog's exact one (selector object or selectorHandle, paged).
type symbolReferencesQuery struct {
	selector
	exactSubject
	IncludeDeclaration    *bool   `json:"includeDeclaration,omitempty"`
	IncludeUsageSiteScope bool    `json:"includeUsageSiteScope,omitempty"`
	MaxResults            *int    `json:"maxResults,omitempty"`
	PageToken             *string `json:"pageToken,omitempty"`
}

func (q *symbolReferencesQuery) check() error {
	if q.IncludeDeclaration == nil {
		q.IncludeDeclaration = ptr(true)
	}
	if q.MaxResults != nil {
		if err := bounded("maxResults", *q.MaxResults); err != nil {
			return err
		}
	}
	if q.later() || q.Symbol == nil {
		if q.selector != (selector{WorkspaceRoot: q.WorkspaceRoot}) {
			return validation("symbol, fileHint, kind and containingType do not go with selector or selectorHandle", nil)
		}
		return q.exactSubject.check()
	}
	return q.selector.check()
}

type symbolReferencesSuccess struct {
	Type           string                 `json:"type"`
	OK             bool                   `json:"ok"`
	Query          *symbolReferencesQuery `json:"query"`
	Symbol         kastSymbol             `json:"symbol"`
	FilePath       string                 `json:"filePath"`
	Offset         int                    `json:"offset"`
	References     []kastLocation         `json:"references"`
	SearchScope    *searchScope           `json:"searchScope,omitempty"`
	Declaration    *kastSymbol            `json:"declaration,omitempty"`
	CandidateCount *int                   `json:"candidateCount,omitempty"`
	Alternatives   []string               `json:"alternatives,omitempty"`
	LogFile        string                 `json:"logFile"`
}

// best resolves a selector to its best declaration and its position.
func (k *Service) best(ctx context.Context, s *selector) (kastSymbol, *filePosition, *int, []string, bool, error) {
	r, err := k.symbolRequest(ctx, &s.WorkspaceRoot, "")
	if err != nil {
		return kastSymbol{}, nil, nil, nil, false, err
	}
	cs, err := r.candidates(ctx, s, nil, nil)
	if err != nil || len(cs) == 0 {
		return kastSymbol{}, nil, nil, nil, false, err
	}
	b, count, alts := symbolquery.Pick(cs)
	sym, _ := r.symbol(b.ID, symbolOpts{})
	return sym, &filePosition{sym.Location.FilePath, ptr(sym.Location.StartOffset)}, count, alts, true, nil
}

func (k *Service) symbolReferences(ctx context.Context, q *symbolReferencesQuery) (any, error) {
	if q.later() {
		return k.exactReferences(ctx, q)
	}
	sym, pos, count, alts, ok, err := k.best(ctx, &q.selector)
	if err != nil || !ok {
		return orNotFound("REFERENCES", q, *q.Symbol, err)
	}
	refs, err := k.references(ctx, &referencesQuery{positional: positional{pos}, IncludeDeclaration: *q.IncludeDeclaration,
		IncludeUsageSiteScope: q.IncludeUsageSiteScope, MaxResults: q.MaxResults, PageToken: q.PageToken})
	if err != nil {
		return failed("REFERENCES", "references", q, err)
	}
	return symbolReferencesSuccess{"REFERENCES_SUCCESS", true, q, sym, pos.FilePath, *pos.Offset, refs.References, refs.SearchScope,
		refs.Declaration, count, alts, kastLogFile}, nil
}

func orNotFound(kind string, q any, name string, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return notFoundFailure(kind, q, name)
}

// --- symbol/callers

type symbolCallersQuery struct {
	selector
	exactSubject
	MaxResults         *int    `json:"maxResults,omitempty"`
	PageToken          *string `json:"pageToken,omitempty"`
	Direction          *string `json:"direction,omitempty"`
	Depth              *int    `json:"depth,omitempty"`
	MaxTotalCalls      *int    `json:"maxTotalCalls,omitempty"`
	MaxChildrenPerNode *int    `json:"maxChildrenPerNode,omitempty"`
	TimeoutMillis      *int64  `json:"timeoutMillis,omitempty"`
}

func (q *symbolCallersQuery) check() error {
	if q.Direction == nil {
		q.Direction = ptr("incoming")
	}
	if q.Depth == nil {
		q.Depth = ptr(2)
	}
	if *q.Direction != "incoming" && *q.Direction != "outgoing" {
		return validation("direction must be incoming or outgoing", map[string]string{"direction": *q.Direction})
	}
	if q.MaxResults != nil {
		if err := bounded("maxResults", *q.MaxResults); err != nil {
			return err
		}
	}
	if q.later() || q.Symbol == nil {
		if q.selector != (selector{WorkspaceRoot: q.WorkspaceRoot}) {
			return validation("symbol, fileHint, kind and containingType do not go with selector or selectorHandle", nil)
		}
		return q.exactSubject.check()
	}
	return q.selector.check()
}

type symbolCallersSuccess struct {
	Type           string              `json:"type"`
	OK             bool                `json:"ok"`
	Query          *symbolCallersQuery `json:"query"`
	Symbol         kastSymbol          `json:"symbol"`
	FilePath       string              `json:"filePath"`
	Offset         int                 `json:"offset"`
	Root           *callNode           `json:"root"`
	Stats          callStats           `json:"stats"`
	CandidateCount *int                `json:"candidateCount,omitempty"`
	Alternatives   []string            `json:"alternatives,omitempty"`
	LogFile        string              `json:"logFile"`
}

func (k *Service) symbolCallers(ctx context.Context, q *symbolCallersQuery) (any, error) {
	if q.later() {
		return k.exactCallers(ctx, q)
	}
	sym, pos, count, alts, ok, err := k.best(ctx, &q.selector)
	if err != nil || !ok {
		return orNotFound("CALLERS", q, *q.Symbol, err)
	}
	raw := &callHierarchyQuery{positional: positional{pos}, Direction: ptr(strings.ToUpper(*q.Direction)), Depth: q.Depth,
		MaxTotalCalls: q.MaxTotalCalls, MaxChildrenPerNode: q.MaxChildrenPerNode, TimeoutMillis: q.TimeoutMillis}
	if err := raw.check(); err != nil {
		return nil, err
	}
	tree, err := k.callHierarchy(ctx, raw)
	if err != nil {
		return failed("CALLERS", "callers", q, err)
	}
	return symbolCallersSuccess{"CALLERS_SUCCESS", true, q, sym, pos.FilePath, *pos.Offset, tree.Root, tree.Stats, count, alts, kastLogFile}, nil
}

// --- symbol/scaffold

type symbolScaffoldQuery struct {
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	TargetFile    *string `json:"targetFile,omitempty"`
	TargetSymbol  *string `json:"targetSymbol,omitempty"`
	Mode          *string `json:"mode,omitempty"`
	Kind          *string `json:"kind,omitempty"`
}

func (q *symbolScaffoldQuery) check() error {
	if q.TargetFile == nil {
		return validation("Missing required field: targetFile", nil)
	}
	if q.Mode == nil {
		q.Mode = ptr("implement")
	}
	if !slices.Contains([]string{"implement", "replace", "consolidate", "extract"}, *q.Mode) {
		return validation("mode must be implement, replace, consolidate or extract", map[string]string{"mode": *q.Mode})
	}
	return checkKind(q.Kind)
}

type scaffoldReferences struct {
	Locations   []kastLocation `json:"locations"`
	Count       int            `json:"count"`
	SearchScope *searchScope   `json:"searchScope,omitempty"`
	Declaration *kastSymbol    `json:"declaration,omitempty"`
}

type scaffoldHierarchy struct {
	Root  *typeNode `json:"root"`
	Stats typeStats `json:"stats"`
}

type symbolScaffoldSuccess struct {
	Type           string               `json:"type"`
	OK             bool                 `json:"ok"`
	Query          *symbolScaffoldQuery `json:"query"`
	Outline        []*outlineSymbol     `json:"outline"`
	FileContent    *string              `json:"fileContent,omitempty"`
	Symbol         *kastSymbol          `json:"symbol,omitempty"`
	References     *scaffoldReferences  `json:"references,omitempty"`
	TypeHierarchy  *scaffoldHierarchy   `json:"typeHierarchy,omitempty"`
	InsertionPoint *insertionResult     `json:"insertionPoint,omitempty"`
	LogFile        string               `json:"logFile"`
}

// symbolScaffold gathers what generating code in a file needs: its outline
// and text and, for a target symbol, its references, type hierarchy and
// where new members go.
func (k *Service) symbolScaffold(ctx context.Context, q *symbolScaffoldQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, *q.TargetFile)
	if err != nil {
		return nil, err
	}
	path, err := r.path(*q.TargetFile)
	if err != nil {
		return failed("SCAFFOLD", "outline", q, err)
	}
	outline, err := k.fileOutline(ctx, &outlineQuery{&path})
	if err != nil {
		return failed("SCAFFOLD", "outline", q, err)
	}
	text, _ := r.text(path)
	content := string(text)
	res := symbolScaffoldSuccess{Type: "SCAFFOLD_SUCCESS", OK: true, Query: q, Outline: outline.Symbols, FileContent: &content, LogFile: kastLogFile}
	target := "FILE_BOTTOM"
	pos := &filePosition{path, ptr(0)}
	if q.TargetSymbol != nil {
		sym, p, _, _, ok, err := k.best(ctx, &selector{WorkspaceRoot: q.WorkspaceRoot, Symbol: q.TargetSymbol, FileHint: &path, Kind: q.Kind})
		if err != nil {
			return nil, err
		}
		if !ok {
			return notFoundFailure("SCAFFOLD", q, *q.TargetSymbol)
		}
		res.Symbol, pos = &sym, p
		refs, err := k.references(ctx, &referencesQuery{positional: positional{p}, IncludeDeclaration: true})
		if err != nil {
			return failed("SCAFFOLD", "references", q, err)
		}
		res.References = &scaffoldReferences{refs.References, len(refs.References), refs.SearchScope, refs.Declaration}
		if sym.Kind == "CLASS" || sym.Kind == "INTERFACE" || sym.Kind == "OBJECT" {
			h, err := k.typeHierarchy(ctx, &typeHierarchyQuery{positional: positional{p}, Depth: ptr(1)})
			if err != nil {
				return failed("SCAFFOLD", "typeHierarchy", q, err)
			}
			res.TypeHierarchy = &scaffoldHierarchy{h.Root, h.Stats}
			target = "CLASS_BODY_END"
		}
	}
	// A class without a body takes new code at the end of the file.
	for _, t := range []string{target, "FILE_BOTTOM"} {
		if ip, err := k.insertionPoint(ctx, &insertionQuery{positional{pos}, &t}); err == nil {
			res.InsertionPoint = &ip
			break
		}
	}
	return res, nil
}
