package kast

// Kast's later catalog names a declaration exactly: by an explicit selector
// (fqName, declaration file, declaration start offset) or by an opaque
// selectorHandle that exact resolution (symbol/resolve) hands out. This
// file resolves both, answers selector/identity and the paged relation
// methods: symbol/references and symbol/callers in their later form,
// symbol/implementations and symbol/hierarchy.

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/hierarchy"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// exactSelector names one declaration; kind and containingType are
// assertions checked against it.
type exactSelector struct {
	FqName                 string  `json:"fqName"`
	DeclarationFile        string  `json:"declarationFile"`
	DeclarationStartOffset *int    `json:"declarationStartOffset"`
	Kind                   *string `json:"kind,omitempty"`
	ContainingType         *string `json:"containingType,omitempty"`
}

// exactSubject is the part of a later-catalog request that names its
// subject: exactly one of selector and selectorHandle.
type exactSubject struct {
	SelectorHandle *string        `json:"selectorHandle,omitempty"`
	Selector       *exactSelector `json:"selector,omitempty"`
}

func (s *exactSubject) later() bool { return s.Selector != nil || s.SelectorHandle != nil }

func (s *exactSubject) check() error {
	if (s.Selector == nil) == (s.SelectorHandle == nil) {
		return validation("Provide exactly one of selector or selectorHandle", nil)
	}
	if sel := s.Selector; sel != nil && (sel.FqName == "" || sel.DeclarationFile == "" || sel.DeclarationStartOffset == nil) {
		return validation("selector needs fqName, declarationFile and declarationStartOffset", nil)
	}
	return nil
}

// outcome is a typed non-success answer of a later-catalog method.
type outcome struct {
	Type    string `json:"type"`
	OK      bool   `json:"ok"`
	Message string `json:"message"`
	Query   any    `json:"query"`
	LogFile string `json:"logFile"`
}

// outcomeError carries a typed outcome through the engine calls.
type outcomeError struct{ kind, msg string }

func (e *outcomeError) Error() string { return e.msg }

// asOutcome turns a subject or cursor failure into its typed answer.
func asOutcome(query any, err error) (any, error) {
	var oe *outcomeError
	if errors.As(err, &oe) {
		return outcome{oe.kind, false, oe.msg, query, kastLogFile}, nil
	}
	var ke *edit.Error
	if errors.As(err, &ke) && ke.Kind == edit.Conflict && (ke.Details["reason"] == cursorStale || ke.Details["reason"] == cursorInvalid) {
		return outcome{ke.Details["reason"], false, ke.Msg, query, kastLogFile}, nil
	}
	return nil, err
}

// selectorHandle is the opaque handle of a declaration: its identity and
// the hash of its file, signed with the process's key, so it is refused
// once the file changes, by another workspace or by another process.
type handlePayload struct {
	Root   string `json:"r"`
	Path   string `json:"p"`
	Offset int    `json:"o"`
	FQName string `json:"n"`
	Kind   string `json:"k"`
	Hash   string `json:"h"`
}

const handlePrefix = "ksh1."

func (k *Service) handle(p handlePayload) string {
	b, _ := json.Marshal(p)
	mac := hmac.New(sha256.New, k.handleKey[:])
	mac.Write(b)
	enc := base64.RawURLEncoding
	return handlePrefix + enc.EncodeToString(b) + "." + enc.EncodeToString(mac.Sum(nil))
}

// openHandle checks a handle's signature and that its file is unchanged.
func (k *Service) openHandle(r *kastRequest, h string) (handlePayload, error) {
	var p handlePayload
	reject := func(msg string) (handlePayload, error) {
		return p, &outcomeError{"SELECTOR_HANDLE_REJECTED", msg}
	}
	body, sig, ok := strings.Cut(strings.TrimPrefix(h, handlePrefix), ".")
	enc := base64.RawURLEncoding
	b, err1 := enc.DecodeString(body)
	s, err2 := enc.DecodeString(sig)
	if !strings.HasPrefix(h, handlePrefix) || !ok || err1 != nil || err2 != nil {
		return reject("not a selector handle")
	}
	mac := hmac.New(sha256.New, k.handleKey[:])
	mac.Write(b)
	if !hmac.Equal(mac.Sum(nil), s) || json.Unmarshal(b, &p) != nil {
		return reject("the selector handle was not issued by this daemon")
	}
	if p.Root != r.root {
		return reject("the selector handle belongs to another workspace")
	}
	if text, err := r.text(p.Path); err != nil || edit.Hash(text) != p.Hash {
		return reject("the declaration's file changed since the handle was issued; resolve the symbol again")
	}
	return p, nil
}

// handleFor issues the handle of a resolved symbol.
func (k *Service) handleFor(r *kastRequest, sym kastSymbol) string {
	text, _ := r.text(sym.Location.FilePath)
	return k.handle(handlePayload{r.root, sym.Location.FilePath, sym.Location.StartOffset, sym.FqName, sym.Kind, edit.Hash(text)})
}

// subject resolves an exact subject to its declaration.
func (k *Service) subject(ctx context.Context, root **string, s *exactSubject) (*kastRequest, resolve.DefID, kastSymbol, error) {
	r, err := k.symbolRequest(ctx, root, "")
	if err != nil {
		return nil, resolve.DefID{}, kastSymbol{}, err
	}
	sel := s.Selector
	if s.SelectorHandle != nil {
		p, err := k.openHandle(r, *s.SelectorHandle)
		if err != nil {
			return nil, resolve.DefID{}, kastSymbol{}, err
		}
		sel = &exactSelector{FqName: p.FQName, DeclarationFile: p.Path, DeclarationStartOffset: &p.Offset, Kind: &p.Kind}
	}
	path, err := r.path(sel.DeclarationFile)
	if err != nil {
		var ke *edit.Error
		if errors.As(err, &ke) && ke.Kind == edit.NotFound {
			return nil, resolve.DefID{}, kastSymbol{}, &outcomeError{"SUBJECT_NOT_FOUND", ke.Msg}
		}
		return nil, resolve.DefID{}, kastSymbol{}, err
	}
	for _, c := range r.snap.Resolver().DefinitionAt(path, *sel.DeclarationStartOffset) {
		if c.Uncertain {
			continue
		}
		sym, ok := r.symbol(c.Def, symbolOpts{})
		switch {
		case !ok || sym.Location.FilePath != path || sym.Location.StartOffset != *sel.DeclarationStartOffset:
			continue // a use at the offset, not the declaration
		case sym.FqName != sel.FqName:
			return nil, resolve.DefID{}, kastSymbol{}, &outcomeError{"SUBJECT_IDENTITY_MISMATCH",
				fmt.Sprintf("the declaration at the offset is %s, not %s", sym.FqName, sel.FqName)}
		case sel.Kind != nil && *sel.Kind != sym.Kind:
			return nil, resolve.DefID{}, kastSymbol{}, &outcomeError{"SUBJECT_IDENTITY_MISMATCH",
				fmt.Sprintf("%s is a %s, not a %s", sym.FqName, sym.Kind, *sel.Kind)}
		case sel.ContainingType != nil && valueOr(sym.ContainingDeclaration, "") != *sel.ContainingType:
			return nil, resolve.DefID{}, kastSymbol{}, &outcomeError{"SUBJECT_IDENTITY_MISMATCH",
				fmt.Sprintf("%s is not declared in %s", sym.FqName, *sel.ContainingType)}
		}
		return r, c.Def, sym, nil
	}
	return nil, resolve.DefID{}, kastSymbol{}, &outcomeError{"SUBJECT_NOT_FOUND",
		fmt.Sprintf("no declaration of %s starts at offset %d of %s", sel.FqName, *sel.DeclarationStartOffset, path)}
}

// --- selector/identity

type identityQuery struct {
	WorkspaceRoot  *string `json:"workspaceRoot,omitempty"`
	SelectorHandle *string `json:"selectorHandle"`
	Family         *string `json:"family"`
}

var selectorFamilies = []string{"REFERENCES", "CALLERS", "CALLEES", "IMPLEMENTATIONS", "HIERARCHY", "IMPACT", "RENAME", "REPLACE_DECLARATION"}

func (q *identityQuery) check() error {
	if q.SelectorHandle == nil || q.Family == nil {
		return validation("selectorHandle and family are required", nil)
	}
	if !slices.Contains(selectorFamilies, *q.Family) {
		return validation("family must be one of "+strings.Join(selectorFamilies, ", "), map[string]string{"family": *q.Family})
	}
	return nil
}

type exactIdentity struct {
	FqName                 string `json:"fqName"`
	DeclarationFile        string `json:"declarationFile"`
	DeclarationStartOffset int    `json:"declarationStartOffset"`
	Kind                   string `json:"kind"`
}

type identityAvailable struct {
	Type     string         `json:"type"`
	OK       bool           `json:"ok"`
	Family   string         `json:"family"`
	Identity exactIdentity  `json:"identity"`
	Query    *identityQuery `json:"query"`
	LogFile  string         `json:"logFile"`
}

// selectorIdentity authenticates a handle without looking the symbol up.
func (k *Service) selectorIdentity(ctx context.Context, q *identityQuery) (any, error) {
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	p, err := k.openHandle(r, *q.SelectorHandle)
	if err != nil {
		return asOutcome(q, err)
	}
	return identityAvailable{"AVAILABLE", true, *q.Family, exactIdentity{p.FQName, p.Path, p.Offset, p.Kind}, q, kastLogFile}, nil
}

// --- symbol/references (later form)

type referencesAvailable struct {
	Type        string                 `json:"type"`
	OK          bool                   `json:"ok"`
	Query       *symbolReferencesQuery `json:"query"`
	Subject     kastSymbol             `json:"subject"`
	References  []kastLocation         `json:"references"`
	Declaration *kastSymbol            `json:"declaration,omitempty"`
	SearchScope *searchScope           `json:"searchScope,omitempty"`
	Page        *pageInfo              `json:"page,omitempty"`
	LogFile     string                 `json:"logFile"`
}

func (k *Service) exactReferences(ctx context.Context, q *symbolReferencesQuery) (any, error) {
	_, _, sym, err := k.subject(ctx, &q.WorkspaceRoot, &q.exactSubject)
	if err != nil {
		return asOutcome(q, err)
	}
	refs, err := k.references(ctx, &referencesQuery{positional: positional{&filePosition{sym.Location.FilePath, ptr(sym.Location.StartOffset)}},
		IncludeDeclaration: *q.IncludeDeclaration, IncludeUsageSiteScope: q.IncludeUsageSiteScope, MaxResults: q.MaxResults, PageToken: q.PageToken})
	if err != nil {
		return asOutcome(q, err)
	}
	return referencesAvailable{"AVAILABLE", true, q, sym, refs.References, refs.Declaration, refs.SearchScope, refs.Page, kastLogFile}, nil
}

// --- symbol/callers (later form)

type callEdge struct {
	Symbol   kastSymbol    `json:"symbol"`
	CallSite *kastLocation `json:"callSite,omitempty"`
	Depth    int           `json:"depth"`
	ParentFq string        `json:"parentFqName"`
	// Ambiguous marks a call its arguments do not bind to this overload
	// rather than another (a rename would refuse it).
	Ambiguous bool `json:"ambiguous,omitempty"`
}

type callersAvailable struct {
	Type      string              `json:"type"`
	OK        bool                `json:"ok"`
	Query     *symbolCallersQuery `json:"query"`
	Subject   kastSymbol          `json:"subject"`
	Direction string              `json:"direction"`
	Calls     []callEdge          `json:"calls"`
	Page      *pageInfo           `json:"page,omitempty"`
	LogFile   string              `json:"logFile"`
}

func (k *Service) exactCallers(ctx context.Context, q *symbolCallersQuery) (any, error) {
	r, _, sym, err := k.subject(ctx, &q.WorkspaceRoot, &q.exactSubject)
	if err != nil {
		return asOutcome(q, err)
	}
	if sym.Kind != "FUNCTION" && sym.Kind != "CONSTRUCTOR" {
		return outcome{"UNSUPPORTED_SUBJECT_KIND", false, sym.FqName + " is a " + sym.Kind + ", not a function", q, kastLogFile}, nil
	}
	tree, err := k.callHierarchy(ctx, &callHierarchyQuery{positional: positional{&filePosition{sym.Location.FilePath, ptr(sym.Location.StartOffset)}},
		Direction: ptr(strings.ToUpper(*q.Direction)), Depth: q.Depth})
	if err != nil {
		return asOutcome(q, err)
	}
	var edges []callEdge
	var walk func(n *callNode, depth int)
	walk = func(n *callNode, depth int) {
		for _, c := range n.Children {
			edges = append(edges, callEdge{c.Symbol, c.CallSite, depth, n.Symbol.FqName, c.ambiguous})
			walk(c, depth+1)
		}
	}
	walk(tree.Root, 1)
	unpaged := *q
	unpaged.PageToken = nil
	page, info, err := paginate(k, r, "symbol/callers", unpaged, q.PageToken, edges, valueOr(q.MaxResults, kastMaxResults))
	if err != nil {
		return asOutcome(q, err)
	}
	return callersAvailable{"AVAILABLE", true, q, sym, *q.Direction, append([]callEdge{}, page...), info, kastLogFile}, nil
}

// --- symbol/implementations

type exactPagedQuery struct {
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	exactSubject
	MaxResults *int    `json:"maxResults,omitempty"`
	PageToken  *string `json:"pageToken,omitempty"`
}

func (q *exactPagedQuery) check() error {
	if err := q.exactSubject.check(); err != nil {
		return err
	}
	if q.MaxResults != nil {
		return bounded("maxResults", *q.MaxResults)
	}
	return nil
}

type implementationsAvailable struct {
	Type            string           `json:"type"`
	OK              bool             `json:"ok"`
	Query           *exactPagedQuery `json:"query"`
	Subject         kastSymbol       `json:"subject"`
	Implementations []kastSymbol     `json:"implementations"`
	Page            *pageInfo        `json:"page,omitempty"`
	LogFile         string           `json:"logFile"`
}

func (k *Service) symbolImplementations(ctx context.Context, q *exactPagedQuery) (any, error) {
	r, _, sym, err := k.subject(ctx, &q.WorkspaceRoot, &q.exactSubject)
	if err != nil {
		return asOutcome(q, err)
	}
	impls := []kastSymbol{}
	for _, s := range navigate.Implementation(r.snap, sym.Location.FilePath, sym.Location.StartOffset) {
		if is, ok := r.symbol(s.Def, symbolOpts{}); ok {
			impls = append(impls, is)
		}
	}
	unpaged := *q
	unpaged.PageToken = nil
	page, info, err := paginate(k, r, "symbol/implementations", unpaged, q.PageToken, impls, valueOr(q.MaxResults, kastMaxResults))
	if err != nil {
		return asOutcome(q, err)
	}
	return implementationsAvailable{"AVAILABLE", true, q, sym, page, info, kastLogFile}, nil
}

// --- symbol/hierarchy

type symbolHierarchyQuery struct {
	exactPagedQuery
	Direction *string `json:"direction"`
	Depth     *int    `json:"depth,omitempty"`
}

func (q *symbolHierarchyQuery) check() error {
	if _, ok := typeDirections[valueOr(q.Direction, "")]; !ok {
		return validation("direction must be SUPERTYPES, SUBTYPES or BOTH", nil)
	}
	if q.Depth != nil && *q.Depth < 0 {
		return validation("depth must not be negative", nil)
	}
	return q.exactPagedQuery.check()
}

type typeRelation struct {
	Symbol   kastSymbol `json:"symbol"`
	Relation string     `json:"relation"`
	Depth    int        `json:"depth"`
	ParentFq string     `json:"parentFqName"`
}

type hierarchyAvailable struct {
	Type      string                `json:"type"`
	OK        bool                  `json:"ok"`
	Query     *symbolHierarchyQuery `json:"query"`
	Subject   kastSymbol            `json:"subject"`
	Relations []typeRelation        `json:"relations"`
	Page      *pageInfo             `json:"page,omitempty"`
	LogFile   string                `json:"logFile"`
}

func (k *Service) symbolHierarchy(ctx context.Context, q *symbolHierarchyQuery) (any, error) {
	r, def, sym, err := k.subject(ctx, &q.WorkspaceRoot, &q.exactSubject)
	if err != nil {
		return asOutcome(q, err)
	}
	if !slices.Contains([]string{"CLASS", "INTERFACE", "OBJECT"}, sym.Kind) {
		return outcome{"UNSUPPORTED_SUBJECT_KIND", false, sym.FqName + " is a " + sym.Kind + ", not a type", q, kastLogFile}, nil
	}
	tree, err := hierarchy.Types(ctx, r.snap, def, typeDirections[*q.Direction], hierarchy.TypeBounds{Depth: valueOr(q.Depth, 3), MaxResults: 10 * kastMaxResults})
	if err != nil {
		return nil, err
	}
	relations := []typeRelation{}
	var walk func(n *hierarchy.TypeNode, parent string, depth int)
	walk = func(n *hierarchy.TypeNode, parent string, depth int) {
		for _, c := range n.Children {
			s, ok := r.symbol(c.Def, symbolOpts{})
			if !ok {
				continue
			}
			rel := "SUBTYPE"
			if c.Supertype {
				rel = "SUPERTYPE"
			}
			relations = append(relations, typeRelation{s, rel, depth, parent})
			walk(c, s.FqName, depth+1)
		}
	}
	walk(tree.Root, sym.FqName, 1)
	unpaged := *q
	unpaged.PageToken = nil
	page, info, err := paginate(k, r, "symbol/hierarchy", unpaged, q.PageToken, relations, valueOr(q.MaxResults, kastMaxResults))
	if err != nil {
		return asOutcome(q, err)
	}
	return hierarchyAvailable{"AVAILABLE", true, q, sym, page, info, kastLogFile}, nil
}
