package kast

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"path"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/complete"
	"github.com/kast-dev/kast/analysis/imports"
	"github.com/kast-dev/kast/analysis/kastapi"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/rename"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/analysis/workspace"
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
	IncludeDeclaration    bool `json:"includeDeclaration"`
	IncludeUsageSiteScope bool `json:"includeUsageSiteScope"`
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
	if len(res.References) > kastMaxResults {
		res.References = res.References[:kastMaxResults]
		token := fmt.Sprint(res.References[kastMaxResults-1].StartOffset)
		res.Page = &pageInfo{Truncated: true, NextPageToken: &token}
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

// --- raw/call-hierarchy

type callHierarchyQuery struct {
	positional
	Direction          *string `json:"direction"`
	Depth              *int    `json:"depth"`
	MaxTotalCalls      *int    `json:"maxTotalCalls"`
	MaxChildrenPerNode *int    `json:"maxChildrenPerNode"`
	TimeoutMillis      *int64  `json:"timeoutMillis"`
}

func (q *callHierarchyQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.Direction == nil {
		return validation("Missing required field: direction", nil)
	}
	if *q.Direction != "INCOMING" && *q.Direction != "OUTGOING" {
		return validation("direction must be INCOMING or OUTGOING", map[string]string{"direction": *q.Direction})
	}
	if q.Depth != nil && *q.Depth < 0 {
		return validation("depth must not be negative", nil)
	}
	for name, v := range map[string]*int{"maxTotalCalls": q.MaxTotalCalls, "maxChildrenPerNode": q.MaxChildrenPerNode} {
		if v != nil {
			if err := positive(name, *v); err != nil {
				return err
			}
		}
	}
	return nil
}

type callNode struct {
	Symbol     kastSymbol    `json:"symbol"`
	CallSite   *kastLocation `json:"callSite,omitempty"`
	Truncation *truncation   `json:"truncation,omitempty"`
	Children   []*callNode   `json:"children"`
}

type truncation struct {
	Reason  string  `json:"reason"`
	Details *string `json:"details,omitempty"`
}

type callStats struct {
	TotalNodes                int  `json:"totalNodes"`
	TotalEdges                int  `json:"totalEdges"`
	TruncatedNodes            int  `json:"truncatedNodes"`
	MaxDepthReached           int  `json:"maxDepthReached"`
	TimeoutReached            bool `json:"timeoutReached"`
	MaxTotalCallsReached      bool `json:"maxTotalCallsReached"`
	MaxChildrenPerNodeReached bool `json:"maxChildrenPerNodeReached"`
	FilesVisited              int  `json:"filesVisited"`
}

type callHierarchyResult struct {
	Root          *callNode `json:"root"`
	Stats         callStats `json:"stats"`
	SchemaVersion int       `json:"schemaVersion"`
}

// callTree expands a bounded call tree: one child per call site, cycles and
// exhausted budgets marked as truncations.
type callTree struct {
	r               *kastRequest
	incoming        bool
	depth, maxTotal int
	maxChildren     int
	deadline        time.Time
	stats           callStats
	files           map[string]bool
}

type callEdge struct {
	def  resolve.DefID
	site kastLocation
	sym  kastSymbol
}

func (t *callTree) edges(def resolve.DefID) []callEdge {
	var out []callEdge
	add := func(target resolve.DefID, path string, span analysis.Span) {
		sym, ok := t.r.symbol(target, symbolOpts{})
		if !ok {
			sym = t.r.fileSymbol(target.Path)
		}
		out = append(out, callEdge{target, t.r.location(path, span), sym})
	}
	if t.incoming {
		for _, c := range t.r.snap.Resolver().Callers(def) {
			if !c.Uncertain {
				add(c.Caller, c.Site.Path, c.Span)
			}
		}
	} else {
		for _, c := range t.r.snap.Resolver().Callees(def) {
			if len(c.Targets) > 0 && !c.Targets[0].Uncertain {
				add(c.Targets[0].Def, c.Site.Path, c.Span)
			}
		}
	}
	slices.SortFunc(out, func(a, b callEdge) int {
		return cmp.Or(cmp.Compare(a.site.FilePath, b.site.FilePath), cmp.Compare(a.site.StartOffset, b.site.StartOffset),
			cmp.Compare(a.site.EndOffset, b.site.EndOffset), cmp.Compare(a.sym.FqName, b.sym.FqName), cmp.Compare(a.sym.Kind, b.sym.Kind))
	})
	return out
}

func (t *callTree) expand(n *callNode, def resolve.DefID, level int, path map[resolve.DefID]bool) {
	t.files[n.Symbol.Location.FilePath] = true
	t.stats.MaxDepthReached = max(t.stats.MaxDepthReached, level)
	if level >= t.depth || def.Index == analysis.None {
		return
	}
	edges := t.edges(def)
	if len(edges) > t.maxChildren {
		edges = edges[:t.maxChildren]
		t.stats.MaxChildrenPerNodeReached = true
		t.truncate(n, "MAX_CHILDREN_PER_NODE")
	}
	for _, e := range edges {
		if !t.deadline.IsZero() && time.Now().After(t.deadline) {
			t.stats.TimeoutReached = true
			t.truncate(n, "TIMEOUT")
			return
		}
		if t.stats.TotalEdges == t.maxTotal {
			t.stats.MaxTotalCallsReached = true
			t.truncate(n, "MAX_TOTAL_CALLS")
			return
		}
		site := e.site
		child := &callNode{Symbol: e.sym, CallSite: &site, Children: []*callNode{}}
		n.Children = append(n.Children, child)
		t.stats.TotalEdges++
		t.stats.TotalNodes++
		t.files[site.FilePath] = true
		if path[e.def] {
			t.truncate(child, "CYCLE")
			continue
		}
		path[e.def] = true
		t.expand(child, e.def, level+1, path)
		delete(path, e.def)
	}
}

func (t *callTree) truncate(n *callNode, reason string) {
	if n.Truncation == nil {
		n.Truncation = &truncation{Reason: reason}
		t.stats.TruncatedNodes++
	}
}

// fileSymbol stands for the top level of a file as a caller.
func (r *kastRequest) fileSymbol(path string) kastSymbol {
	return kastSymbol{FqName: path, Kind: "UNKNOWN", Location: r.location(path, analysis.Span{})}
}

func (k *Service) callHierarchy(ctx context.Context, q *callHierarchyQuery) (callHierarchyResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return callHierarchyResult{}, err
	}
	t := &callTree{r: r, incoming: *q.Direction == "INCOMING", depth: valueOr(q.Depth, 3), maxTotal: valueOr(q.MaxTotalCalls, 256),
		maxChildren: valueOr(q.MaxChildrenPerNode, 64), files: map[string]bool{}}
	if q.TimeoutMillis != nil {
		t.deadline = time.Now().Add(time.Duration(*q.TimeoutMillis) * time.Millisecond)
	}
	sym, _ := r.symbol(def, symbolOpts{})
	root := &callNode{Symbol: sym, Children: []*callNode{}}
	t.stats.TotalNodes = 1
	t.expand(root, def, 0, map[resolve.DefID]bool{def: true})
	t.stats.FilesVisited = len(t.files)
	return callHierarchyResult{root, t.stats, kastSchemaVersion}, nil
}

func valueOr[T any](p *T, def T) T {
	if p == nil {
		return def
	}
	return *p
}

// --- raw/type-hierarchy

type typeHierarchyQuery struct {
	positional
	Direction  *string `json:"direction"`
	Depth      *int    `json:"depth"`
	MaxResults *int    `json:"maxResults"`
}

func (q *typeHierarchyQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.Direction != nil && !slices.Contains([]string{"SUPERTYPES", "SUBTYPES", "BOTH"}, *q.Direction) {
		return validation("direction must be SUPERTYPES, SUBTYPES or BOTH", map[string]string{"direction": *q.Direction})
	}
	if q.Depth != nil && *q.Depth < 0 {
		return validation("depth must not be negative", nil)
	}
	if q.MaxResults != nil {
		return positive("maxResults", *q.MaxResults)
	}
	return nil
}

type typeNode struct {
	Symbol     kastSymbol  `json:"symbol"`
	Children   []*typeNode `json:"children"`
	Truncation *truncation `json:"truncation,omitempty"`
}

type typeStats struct {
	TotalNodes      int  `json:"totalNodes"`
	MaxDepthReached int  `json:"maxDepthReached"`
	Truncated       bool `json:"truncated"`
}

type typeHierarchyResult struct {
	Root          *typeNode `json:"root"`
	Stats         typeStats `json:"stats"`
	SchemaVersion int       `json:"schemaVersion"`
}

func (k *Service) typeHierarchy(ctx context.Context, q *typeHierarchyQuery) (typeHierarchyResult, error) {
	r, def, _, _, err := k.at(ctx, q.Position)
	if err != nil {
		return typeHierarchyResult{}, err
	}
	dir, depth, maxResults := valueOr(q.Direction, "BOTH"), valueOr(q.Depth, 3), valueOr(q.MaxResults, 256)
	var stats typeStats
	sym, _ := r.symbol(def, symbolOpts{})
	root := &typeNode{Symbol: sym, Children: []*typeNode{}}
	stats.TotalNodes = 1
	var walk func(n *typeNode, id resolve.DefID, up bool, level int, path map[resolve.DefID]bool)
	walk = func(n *typeNode, id resolve.DefID, up bool, level int, path map[resolve.DefID]bool) {
		stats.MaxDepthReached = max(stats.MaxDepthReached, level)
		if level >= depth {
			return
		}
		next := navigate.Subtypes(r.snap, id)
		if up {
			next = navigate.Supertypes(r.snap, id)
		}
		for _, s := range next {
			if stats.TotalNodes-1 >= maxResults {
				stats.Truncated = true
				n.Truncation = &truncation{Reason: "MAX_RESULTS"}
				return
			}
			cs, ok := r.symbol(s.Def, symbolOpts{})
			if !ok {
				continue
			}
			child := &typeNode{Symbol: cs, Children: []*typeNode{}}
			n.Children = append(n.Children, child)
			stats.TotalNodes++
			if path[s.Def] {
				child.Truncation = &truncation{Reason: "CYCLE"}
				stats.Truncated = true
				continue
			}
			path[s.Def] = true
			walk(child, s.Def, up, level+1, path)
			delete(path, s.Def)
		}
	}
	// Supertypes first, then subtypes, in one children list.
	if dir != "SUBTYPES" {
		walk(root, def, true, 0, map[resolve.DefID]bool{def: true})
	}
	if dir != "SUPERTYPES" {
		walk(root, def, false, 0, map[resolve.DefID]bool{def: true})
	}
	return typeHierarchyResult{root, stats, kastSchemaVersion}, nil
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
	at, ok := kastapi.InsertionPoint(f, text, offset, *q.Target)
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

func (k *Service) diagnostics(ctx context.Context, q *filesQuery) (diagnosticsResult, error) {
	r, paths, err := k.paths(ctx, *q.FilePaths)
	if err != nil {
		return diagnosticsResult{}, err
	}
	res := diagnosticsResult{Diagnostics: []kastDiagnostic{}, SchemaVersion: kastSchemaVersion}
	code := "SYNTAX_ERROR"
	for _, path := range paths {
		f := r.snap.File(path)
		if f == nil {
			continue
		}
		for _, e := range f.Errors {
			res.Diagnostics = append(res.Diagnostics, kastDiagnostic{r.location(path, e.Span), "ERROR", e.Message, &code})
		}
	}
	if len(res.Diagnostics) > kastMaxResults {
		res.Diagnostics = res.Diagnostics[:kastMaxResults]
		res.Page = &pageInfo{Truncated: true}
	}
	return res, nil
}

// --- raw/rename and raw/optimize-imports

type renameQuery struct {
	positional
	NewName *string `json:"newName"`
	DryRun  *bool   `json:"dryRun"`
}

func (q *renameQuery) check() error {
	if err := q.positional.check(); err != nil {
		return err
	}
	if q.NewName == nil || strings.TrimSpace(*q.NewName) == "" {
		return validation("newName must not be blank", nil)
	}
	return nil
}

type editPlan struct {
	Edits         []kastEdit   `json:"edits"`
	FileHashes    []fileHash   `json:"fileHashes"`
	AffectedFiles []string     `json:"affectedFiles"`
	SearchScope   *searchScope `json:"searchScope,omitempty"`
	SchemaVersion int          `json:"schemaVersion"`
}

// kastEdit is an outgoing TextEdit (offsets always present).
type kastEdit struct {
	FilePath    string `json:"filePath"`
	StartOffset int    `json:"startOffset"`
	EndOffset   int    `json:"endOffset"`
	NewText     string `json:"newText"`
}

// plan lists edits with the hashes of the files they apply to.
func (r *kastRequest) plan(edits []kastEdit) (editPlan, error) {
	slices.SortFunc(edits, func(a, b kastEdit) int {
		return cmp.Or(cmp.Compare(a.FilePath, b.FilePath), cmp.Compare(a.StartOffset, b.StartOffset))
	})
	p := editPlan{Edits: edits, FileHashes: []fileHash{}, AffectedFiles: []string{}, SchemaVersion: kastSchemaVersion}
	for _, e := range edits {
		if n := len(p.AffectedFiles); n > 0 && p.AffectedFiles[n-1] == e.FilePath {
			continue
		}
		text, err := r.text(e.FilePath)
		if err != nil {
			return editPlan{}, err
		}
		p.AffectedFiles = append(p.AffectedFiles, e.FilePath)
		p.FileHashes = append(p.FileHashes, fileHash{e.FilePath, kastapi.Hash(text)})
	}
	return p, nil
}

// rename plans a rename; dryRun is accepted, and the plan is never applied
// here (raw/apply-edits does that), as in Kast.
func (k *Service) rename(ctx context.Context, q *renameQuery) (editPlan, error) {
	r, def, path, offset, err := k.at(ctx, q.Position)
	if err != nil {
		return editPlan{}, err
	}
	edits, err := rename.Rename(r.snap, path, offset, *q.NewName)
	var re *rename.Error
	if errors.As(err, &re) {
		return editPlan{}, validation(re.Msg, map[string]string{"filePath": path, "offset": fmt.Sprint(offset)})
	}
	if err != nil {
		return editPlan{}, err
	}
	out := make([]kastEdit, len(edits))
	for i, e := range edits {
		out[i] = kastEdit{e.Path, e.Span.Start, e.Span.End, e.NewText}
	}
	p, err := r.plan(out)
	if err != nil {
		return editPlan{}, err
	}
	sym, _ := r.symbol(def, symbolOpts{})
	p.SearchScope = scopeOf(sym, true, len(p.AffectedFiles))
	return p, nil
}

type importPlan struct {
	Edits         []kastEdit `json:"edits"`
	FileHashes    []fileHash `json:"fileHashes"`
	AffectedFiles []string   `json:"affectedFiles"`
	SchemaVersion int        `json:"schemaVersion"`
}

func (r *kastRequest) importEdits(path string) []kastEdit {
	f := r.snap.File(path)
	text, err := r.text(path)
	if f == nil || err != nil {
		return nil
	}
	var out []kastEdit
	for _, e := range imports.Organize(f, text) {
		out = append(out, kastEdit{path, e.Start, e.End, e.NewText})
	}
	return out
}

func (k *Service) optimizeImports(ctx context.Context, q *filesQuery) (importPlan, error) {
	r, paths, err := k.paths(ctx, *q.FilePaths)
	if err != nil {
		return importPlan{}, err
	}
	edits := []kastEdit{}
	for _, path := range paths {
		edits = append(edits, r.importEdits(path)...)
	}
	p, err := r.plan(edits)
	return importPlan{p.Edits, p.FileHashes, p.AffectedFiles, kastSchemaVersion}, err
}

// --- raw/apply-edits

type fileOperation struct {
	Type         string  `json:"type"`
	FilePath     string  `json:"filePath"`
	Content      *string `json:"content"`
	ExpectedHash *string `json:"expectedHash"`
}

type applyEditsQuery struct {
	Edits          *[]textEdit     `json:"edits"`
	FileHashes     *[]fileHash     `json:"fileHashes"`
	FileOperations []fileOperation `json:"fileOperations"`
}

func (q *applyEditsQuery) check() error {
	if q.Edits == nil {
		return validation("Missing required field: edits", nil)
	}
	if q.FileHashes == nil {
		return validation("Missing required field: fileHashes", nil)
	}
	for _, e := range *q.Edits {
		if e.StartOffset == nil || e.EndOffset == nil {
			return validation("Every edit needs startOffset and endOffset", map[string]string{"filePath": e.FilePath})
		}
	}
	for _, op := range q.FileOperations {
		switch {
		case op.Type == "CREATE_FILE" && op.Content == nil:
			return validation("CREATE_FILE needs content", map[string]string{"filePath": op.FilePath})
		case op.Type == "DELETE_FILE" && op.ExpectedHash == nil:
			return validation("DELETE_FILE needs expectedHash", map[string]string{"filePath": op.FilePath})
		case op.Type != "CREATE_FILE" && op.Type != "DELETE_FILE":
			return validation("Unknown file operation type "+op.Type, map[string]string{"filePath": op.FilePath})
		}
	}
	return nil
}

type applyEditsResult struct {
	Applied       []kastEdit `json:"applied"`
	AffectedFiles []string   `json:"affectedFiles"`
	CreatedFiles  []string   `json:"createdFiles"`
	DeletedFiles  []string   `json:"deletedFiles"`
	SchemaVersion int        `json:"schemaVersion"`
}

func (k *Service) applyEdits(ctx context.Context, q *applyEditsQuery) (applyEditsResult, error) {
	first := ""
	if len(*q.Edits) > 0 {
		first = (*q.Edits)[0].FilePath
	} else if len(q.FileOperations) > 0 {
		first = q.FileOperations[0].FilePath
	}
	r, err := k.request(ctx, first)
	if err != nil {
		return applyEditsResult{}, err
	}
	plan := kastapi.Plan{Hashes: map[string]string{}}
	for _, h := range *q.FileHashes {
		path, err := kastapi.CheckPath(r.root, h.FilePath)
		if err != nil {
			return applyEditsResult{}, err
		}
		if _, dup := plan.Hashes[path]; dup {
			return applyEditsResult{}, validation("Duplicate expected hash for "+path, map[string]string{"filePath": path})
		}
		plan.Hashes[path] = h.Hash
	}
	for _, e := range *q.Edits {
		path, err := kastapi.CheckPath(r.root, e.FilePath)
		if err != nil {
			return applyEditsResult{}, err
		}
		plan.Edits = append(plan.Edits, kastapi.Edit{Path: path, Start: *e.StartOffset, End: *e.EndOffset, NewText: e.NewText})
	}
	for _, op := range q.FileOperations {
		path, err := kastapi.CheckPath(r.root, op.FilePath)
		if err != nil {
			return applyEditsResult{}, err
		}
		plan.Ops = append(plan.Ops, kastapi.FileOp{Create: op.Type == "CREATE_FILE", Path: path, Content: valueOr(op.Content, ""), ExpectedHash: valueOr(op.ExpectedHash, "")})
	}
	applied, err := kastapi.Apply(plan)
	// Whatever was written is reindexed, so the next read sees it.
	k.reindex(ctx, r, applied.Affected)
	if err != nil {
		return applyEditsResult{}, err
	}
	res := applyEditsResult{Applied: []kastEdit{}, AffectedFiles: applied.Affected, CreatedFiles: applied.Created, DeletedFiles: applied.Deleted, SchemaVersion: kastSchemaVersion}
	for _, e := range applied.Edits {
		res.Applied = append(res.Applied, kastEdit{e.Path, e.Start, e.End, e.NewText})
	}
	return res, nil
}

// reindex brings the index up to date for files changed on disk, and
// reports which were refreshed and which removed.
func (k *Service) reindex(ctx context.Context, r *kastRequest, paths []string) (refreshed, removed []string) {
	refreshed, removed = []string{}, []string{}
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			if r.kr.ws.Remove(path) == nil {
				removed = append(removed, path)
			}
			continue
		}
		if !workspace.Supported(path) {
			continue
		}
		info, err := os.Stat(path)
		if err == nil && r.kr.ws.Reindex(ctx, path, src, info.ModTime()) == nil {
			refreshed = append(refreshed, path)
		}
	}
	go k.resolveUses(r.root)
	return refreshed, removed
}

// --- raw/workspace-refresh

type refreshQuery struct {
	FilePaths []string `json:"filePaths"`
}

type refreshResult struct {
	RefreshedFiles []string `json:"refreshedFiles"`
	RemovedFiles   []string `json:"removedFiles"`
	FullRefresh    bool     `json:"fullRefresh"`
	SchemaVersion  int      `json:"schemaVersion"`
}

func (k *Service) refresh(ctx context.Context, q *refreshQuery) (refreshResult, error) {
	first := ""
	if len(q.FilePaths) > 0 {
		first = q.FilePaths[0]
	}
	r, err := k.request(ctx, first)
	if err != nil {
		return refreshResult{}, err
	}
	if len(q.FilePaths) > 0 {
		var paths []string
		for _, p := range q.FilePaths {
			path, err := kastapi.CheckPath(r.root, p)
			if err != nil {
				return refreshResult{}, err
			}
			paths = append(paths, path)
		}
		refreshed, removed := k.reindex(ctx, r, paths)
		return refreshResult{refreshed, removed, false, kastSchemaVersion}, nil
	}
	before := map[string]bool{}
	for _, p := range r.snap.Files() {
		before[p] = true
	}
	if _, err := k.pool.Refresh(ctx, r.root, nil); err != nil {
		return refreshResult{}, err
	}
	go k.resolveUses(r.root)
	res := refreshResult{RefreshedFiles: []string{}, RemovedFiles: []string{}, FullRefresh: true, SchemaVersion: kastSchemaVersion}
	after, _ := k.request(ctx, r.root)
	for _, p := range after.snap.Files() {
		res.RefreshedFiles = append(res.RefreshedFiles, p)
		delete(before, p)
	}
	res.RemovedFiles = append(res.RemovedFiles, sortedKeys(before)...)
	return res, nil
}

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
	if g := valueOr(q.FileGlob, ""); g != "" {
		if _, err := path.Match(g, ""); err != nil {
			return workspaceSearchResult{}, validation("Invalid file glob: "+err.Error(), map[string]string{"fileGlob": g})
		}
		rq.Scope.Include = []string{g}
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
}

func (q *workspaceFilesQuery) check() error {
	if m := q.MaxFilesPerModule; m != nil && (*m < 1 || *m > kastMaxResults) {
		return validation(fmt.Sprintf("maxFilesPerModule must be between 1 and %d", kastMaxResults), map[string]string{"maxFilesPerModule": fmt.Sprint(*m)})
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
}

type workspaceFilesResult struct {
	Modules       []workspaceModule `json:"modules"`
	SchemaVersion int               `json:"schemaVersion"`
}

// workspaceFiles reports the root as one module: kast has no build model.
func (k *Service) workspaceFiles(ctx context.Context, q *workspaceFilesQuery) (workspaceFilesResult, error) {
	r, err := k.request(ctx, "")
	if err != nil {
		return workspaceFilesResult{}, err
	}
	res := workspaceFilesResult{Modules: []workspaceModule{}, SchemaVersion: kastSchemaVersion}
	name := naming.RootModule(r.root)
	if q.ModuleName != nil && *q.ModuleName != name {
		return res, nil
	}
	files := r.snap.Files()
	m := workspaceModule{Name: name, SourceRoots: []string{r.root}, DependencyModuleNames: []string{}, Files: []string{}, FileCount: len(files)}
	if q.IncludeFiles {
		limit := valueOr(q.MaxFilesPerModule, kastMaxResults)
		m.Files = files[:min(limit, len(files))]
		m.FilesTruncated = len(files) > limit
	}
	res.Modules = append(res.Modules, m)
	return res, nil
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

// --- raw/code-actions

type codeActionsQuery struct {
	positional
	DiagnosticCode *string `json:"diagnosticCode"`
}

type codeAction struct {
	Title          string     `json:"title"`
	DiagnosticCode *string    `json:"diagnosticCode,omitempty"`
	Edits          []kastEdit `json:"edits"`
	FileHashes     []fileHash `json:"fileHashes"`
}

type codeActionsResult struct {
	Actions       []codeAction `json:"actions"`
	SchemaVersion int          `json:"schemaVersion"`
}

// codeActions offers what kast can plan at a position: organizing the
// file's imports (for UNUSED_IMPORT, or when no code is asked for).
func (k *Service) codeActions(ctx context.Context, q *codeActionsQuery) (codeActionsResult, error) {
	r, err := k.request(ctx, q.Position.FilePath)
	if err != nil {
		return codeActionsResult{}, err
	}
	path, _, _, err := r.position(q.Position)
	if err != nil {
		return codeActionsResult{}, err
	}
	res := codeActionsResult{Actions: []codeAction{}, SchemaVersion: kastSchemaVersion}
	if q.DiagnosticCode == nil || *q.DiagnosticCode == "UNUSED_IMPORT" {
		if edits := r.importEdits(path); len(edits) > 0 {
			p, err := r.plan(edits)
			if err != nil {
				return codeActionsResult{}, err
			}
			res.Actions = append(res.Actions, codeAction{Title: "Optimize imports", DiagnosticCode: q.DiagnosticCode, Edits: p.Edits, FileHashes: p.FileHashes})
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
