package kast

// The later catalog's scope mutations: symbol/add-file,
// symbol/add-declaration, symbol/add-implementation, symbol/add-statement
// and symbol/replace-declaration. Each finds where its content goes, then
// writes and validates it like symbol/write-and-validate (the same
// hash-checked edit engine as raw/apply-edits) and answers
// SCOPE_MUTATION_SUCCESS or SCOPE_MUTATION_FAILURE.

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/resolve"
)

type scopeMutationSuccess struct {
	Type          string            `json:"type"`
	OK            bool              `json:"ok"`
	Query         any               `json:"query"`
	FilePath      string            `json:"filePath"`
	Offset        int               `json:"offset"`
	AppliedEdits  int               `json:"appliedEdits"`
	ImportChanges int               `json:"importChanges"`
	Diagnostics   diagnosticSummary `json:"diagnostics"`
	Message       *string           `json:"message,omitempty"`
	LogFile       string            `json:"logFile"`
}

// scopeWrite writes the content file's text through write-and-validate
// and answers as a scope mutation.
func (k *Service) scopeWrite(ctx context.Context, query any, w *symbolWriteQuery) (any, error) {
	at := valueOr(w.Offset, valueOr(w.StartOffset, 0))
	res, err := k.symbolWrite(ctx, w)
	if err != nil {
		return nil, err
	}
	switch v := res.(type) {
	case symbolWriteSuccess:
		return scopeMutationSuccess{"SCOPE_MUTATION_SUCCESS", v.OK, query, *w.FilePath, at, v.AppliedEdits, v.ImportChanges, v.Diagnostics, v.Message, kastLogFile}, nil
	case symbolFailure:
		v.Type, v.Query = "SCOPE_MUTATION_FAILURE", query
		return v, nil
	}
	return res, nil
}

func scopeFailure(query any, stage string, err error) (any, error) {
	res, ferr := failed("SCOPE_MUTATION", stage, query, err)
	return res, ferr
}

// --- symbol/add-file

type addFileQuery struct {
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	FilePath      *string `json:"filePath"`
	ContentFile   *string `json:"contentFile"`
}

func (q *addFileQuery) check() error {
	if q.FilePath == nil || q.ContentFile == nil {
		return validation("filePath and contentFile are required", nil)
	}
	return nil
}

func (k *Service) addFile(ctx context.Context, q *addFileQuery) (any, error) {
	return k.scopeWrite(ctx, q, &symbolWriteQuery{Type: "CREATE_FILE_REQUEST", WorkspaceRoot: q.WorkspaceRoot, FilePath: q.FilePath, ContentFile: q.ContentFile})
}

// --- symbol/add-declaration and symbol/add-implementation

type scopeRef struct {
	Type           string  `json:"type"`
	InsideScope    *string `json:"insideScope,omitempty"`
	InsideFile     *string `json:"insideFile,omitempty"`
	FileHint       *string `json:"fileHint,omitempty"`
	Kind           *string `json:"kind,omitempty"`
	ContainingType *string `json:"containingType,omitempty"`
}

type anchorRef struct {
	Type           string  `json:"type"`
	Anchor         *string `json:"anchor,omitempty"`
	Symbol         *string `json:"symbol,omitempty"`
	FileHint       *string `json:"fileHint,omitempty"`
	Kind           *string `json:"kind,omitempty"`
	ContainingType *string `json:"containingType,omitempty"`
}

type placement struct {
	Scope  *scopeRef  `json:"scope"`
	Anchor *anchorRef `json:"anchor"`
}

// anchorTargets maps the later catalog's anchors to insertion targets.
var anchorTargets = map[string]string{"body-start": "CLASS_BODY_START", "body-end": "CLASS_BODY_END", "file-top": "FILE_TOP",
	"file-bottom": "FILE_BOTTOM", "after-imports": "AFTER_IMPORTS"}

func (p *placement) check() error {
	if p == nil || p.Scope == nil || p.Anchor == nil {
		return validation("placement needs scope and anchor", nil)
	}
	switch {
	case p.Scope.Type == "NAMED_SCOPE" && p.Scope.InsideScope == nil, p.Scope.Type == "FILE_SCOPE" && p.Scope.InsideFile == nil:
		return validation(p.Scope.Type+" needs insideScope or insideFile", nil)
	case p.Scope.Type != "NAMED_SCOPE" && p.Scope.Type != "FILE_SCOPE":
		return validation("scope.type must be NAMED_SCOPE or FILE_SCOPE", map[string]string{"type": p.Scope.Type})
	}
	switch p.Anchor.Type {
	case "AT_ANCHOR":
		if anchorTargets[valueOr(p.Anchor.Anchor, "")] == "" {
			return validation("anchor must be body-start, body-end, file-top, file-bottom or after-imports", nil)
		}
	case "AFTER_SYMBOL", "BEFORE_SYMBOL":
		if p.Anchor.Symbol == nil {
			return validation(p.Anchor.Type+" needs symbol", nil)
		}
	default:
		return validation("anchor.type must be AT_ANCHOR, AFTER_SYMBOL or BEFORE_SYMBOL", map[string]string{"type": p.Anchor.Type})
	}
	return firstErr(checkKind(p.Scope.Kind), checkKind(p.Anchor.Kind))
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

type addDeclarationQuery struct {
	WorkspaceRoot *string    `json:"workspaceRoot,omitempty"`
	Placement     *placement `json:"placement"`
	ContentFile   *string    `json:"contentFile"`
}

func (q *addDeclarationQuery) check() error {
	if q.ContentFile == nil {
		return validation("Missing required field: contentFile", nil)
	}
	return q.Placement.check()
}

// exactDecl finds the one declaration a name means: a qualified name must
// match whole, a simple name exactly; none or several is NOT_FOUND.
func (r *kastRequest) exactDecl(ctx context.Context, name string, fileHint, kind, containingType *string) (resolve.DefID, kastSymbol, error) {
	simple := name[strings.LastIndexByte(name, '.')+1:]
	cs, err := r.candidates(ctx, &selector{Symbol: &simple, FileHint: fileHint, Kind: kind, ContainingType: containingType}, nil, nil)
	if err != nil {
		return resolve.DefID{}, kastSymbol{}, err
	}
	var found []resolve.DefID
	var syms []kastSymbol
	for _, c := range cs {
		sym, ok := r.symbol(c.ID, symbolOpts{})
		if !ok || sym.FqName != name && !strings.HasSuffix(sym.FqName, "."+name) && !(simple == name && r.snap.File(c.ID.Path).Defs[c.ID.Index].Name == name) {
			continue
		}
		if fileHint != nil && !strings.HasSuffix(sym.Location.FilePath, *fileHint) {
			continue
		}
		found, syms = append(found, c.ID), append(syms, sym)
	}
	switch {
	case len(found) == 0:
		return resolve.DefID{}, kastSymbol{}, notFound("No declaration named "+name+" was found", map[string]string{"symbol": name})
	case len(found) > 1:
		return resolve.DefID{}, kastSymbol{}, notFound(fmt.Sprintf("%s names %d declarations; qualify it or give fileHint or kind", name, len(found)),
			map[string]string{"symbol": name})
	}
	return found[0], syms[0], nil
}

// placeAt resolves a placement to a file and an offset in it.
func (k *Service) placeAt(ctx context.Context, r *kastRequest, p *placement) (string, int, error) {
	var path string
	pos := 0
	if p.Scope.Type == "FILE_SCOPE" {
		var err error
		if path, err = r.path(*p.Scope.InsideFile); err != nil {
			return "", 0, err
		}
	} else {
		_, sym, err := r.exactDecl(ctx, *p.Scope.InsideScope, p.Scope.FileHint, p.Scope.Kind, p.Scope.ContainingType)
		if err != nil {
			return "", 0, err
		}
		path, pos = sym.Location.FilePath, sym.Location.StartOffset
	}
	text, err := r.text(path)
	if err != nil {
		return "", 0, err
	}
	if p.Anchor.Type == "AT_ANCHOR" {
		target := anchorTargets[*p.Anchor.Anchor]
		ip, err := k.insertionPoint(ctx, &insertionQuery{positional{&filePosition{path, &pos}}, &target})
		return path, ip.InsertionOffset, err
	}
	hint := p.Anchor.FileHint
	if hint == nil {
		hint = &path
	}
	id, _, err := r.exactDecl(ctx, *p.Anchor.Symbol, hint, p.Anchor.Kind, p.Anchor.ContainingType)
	if err != nil {
		return "", 0, err
	}
	span := r.snap.File(id.Path).Defs[id.Index].FullSpan
	if id.Path != path {
		return "", 0, validation("the anchor symbol is not in the scope's file", map[string]string{"symbol": *p.Anchor.Symbol})
	}
	if p.Anchor.Type == "BEFORE_SYMBOL" {
		return path, edit.LineStart(text, span.Start), nil
	}
	return path, edit.LineAfter(text, span.End), nil
}

func (k *Service) addDeclaration(ctx context.Context, q *addDeclarationQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	path, at, err := k.placeAt(ctx, r, q.Placement)
	if err != nil {
		return scopeFailure(q, "placement", err)
	}
	return k.scopeWrite(ctx, q, &symbolWriteQuery{Type: "INSERT_AT_OFFSET_REQUEST", WorkspaceRoot: q.WorkspaceRoot, FilePath: &path, Offset: &at, ContentFile: q.ContentFile})
}

// --- symbol/add-statement

type addStatementQuery struct {
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	InsideScope   *string `json:"insideScope"`
	Anchor        *string `json:"anchor"`
	ContentFile   *string `json:"contentFile"`
}

func (q *addStatementQuery) check() error {
	if q.InsideScope == nil || q.ContentFile == nil || q.Anchor == nil {
		return validation("insideScope, anchor and contentFile are required", nil)
	}
	if *q.Anchor != "body-end" {
		return validation("anchor must be body-end", map[string]string{"anchor": *q.Anchor})
	}
	return nil
}

func (k *Service) addStatement(ctx context.Context, q *addStatementQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	id, sym, err := r.exactDecl(ctx, *q.InsideScope, nil, nil, nil)
	if err != nil {
		return scopeFailure(q, "placement", err)
	}
	if !slices.Contains([]string{"FUNCTION", "CONSTRUCTOR"}, sym.Kind) {
		return scopeFailure(q, "placement", validation(sym.FqName+" is not an executable scope", nil))
	}
	text, _ := r.text(id.Path)
	span := r.snap.File(id.Path).Defs[id.Index].FullSpan
	at, ok := edit.BodyEnd(text, span.Start, span.End)
	if !ok {
		return scopeFailure(q, "placement", notFound(sym.FqName+" has no block body", map[string]string{"insideScope": *q.InsideScope}))
	}
	return k.scopeWrite(ctx, q, &symbolWriteQuery{Type: "INSERT_AT_OFFSET_REQUEST", WorkspaceRoot: q.WorkspaceRoot, FilePath: &id.Path, Offset: &at, ContentFile: q.ContentFile})
}

// --- symbol/replace-declaration

type replaceDeclarationQuery struct {
	WorkspaceRoot  *string `json:"workspaceRoot,omitempty"`
	Symbol         *string `json:"symbol"`
	ContentFile    *string `json:"contentFile"`
	FileHint       *string `json:"fileHint,omitempty"`
	Kind           *string `json:"kind,omitempty"`
	ContainingType *string `json:"containingType,omitempty"`
}

func (q *replaceDeclarationQuery) check() error {
	if q.Symbol == nil || q.ContentFile == nil {
		return validation("symbol and contentFile are required", nil)
	}
	return checkKind(q.Kind)
}

func (k *Service) replaceDeclaration(ctx context.Context, q *replaceDeclarationQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	id, _, err := r.exactDecl(ctx, *q.Symbol, q.FileHint, q.Kind, q.ContainingType)
	if err != nil {
		return scopeFailure(q, "resolve", err)
	}
	span := r.snap.File(id.Path).Defs[id.Index].FullSpan
	return k.scopeWrite(ctx, q, &symbolWriteQuery{Type: "REPLACE_RANGE_REQUEST", WorkspaceRoot: q.WorkspaceRoot, FilePath: &id.Path,
		StartOffset: &span.Start, EndOffset: &span.End, ContentFile: q.ContentFile})
}
