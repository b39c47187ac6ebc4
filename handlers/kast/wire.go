package kast

import (
	"cmp"
	"slices"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Kast wire shapes. Optional fields are pointers or slices with omitempty
// (Kast omits nulls); fields with defaults have none (Kast emits defaults).

type filePosition struct {
	FilePath string `json:"filePath"`
	Offset   *int   `json:"offset"`
}

func (p *filePosition) check() error {
	if p == nil {
		return validation("Missing required field: position", nil)
	}
	if p.Offset == nil {
		return validation("Missing required field: position.offset", nil)
	}
	return nil
}

type kastLocation struct {
	FilePath       string            `json:"filePath"`
	StartOffset    int               `json:"startOffset"`
	EndOffset      int               `json:"endOffset"`
	StartLine      int               `json:"startLine"`
	StartColumn    int               `json:"startColumn"`
	Preview        string            `json:"preview"`
	UsageSiteScope *declarationScope `json:"usageSiteScope,omitempty"`
}

type declarationScope struct {
	StartOffset int     `json:"startOffset"`
	EndOffset   int     `json:"endOffset"`
	StartLine   int     `json:"startLine"`
	EndLine     int     `json:"endLine"`
	SourceText  *string `json:"sourceText,omitempty"`
}

type parameterInfo struct {
	Name         string  `json:"name"`
	Type         string  `json:"type"`
	DefaultValue *string `json:"defaultValue,omitempty"`
	IsVararg     bool    `json:"isVararg"`
}

type kastSymbol struct {
	FqName                string            `json:"fqName"`
	Kind                  string            `json:"kind"`
	Location              kastLocation      `json:"location"`
	Type                  *string           `json:"type,omitempty"`
	ReturnType            *string           `json:"returnType,omitempty"`
	Parameters            []parameterInfo   `json:"parameters,omitempty"`
	Documentation         *string           `json:"documentation,omitempty"`
	ContainingDeclaration *string           `json:"containingDeclaration,omitempty"`
	Supertypes            []string          `json:"supertypes,omitempty"`
	Visibility            *string           `json:"visibility,omitempty"`
	DeclarationScope      *declarationScope `json:"declarationScope,omitempty"`
}

type textEdit struct {
	FilePath    string `json:"filePath"`
	StartOffset *int   `json:"startOffset"`
	EndOffset   *int   `json:"endOffset"`
	NewText     string `json:"newText"`
}

type fileHash struct {
	FilePath string `json:"filePath"`
	Hash     string `json:"hash"`
}

type pageInfo struct {
	Truncated     bool    `json:"truncated"`
	NextPageToken *string `json:"nextPageToken,omitempty"`
}

type searchScope struct {
	Visibility         string `json:"visibility"`
	Scope              string `json:"scope"`
	Exhaustive         bool   `json:"exhaustive"`
	CandidateFileCount int    `json:"candidateFileCount"`
	SearchedFileCount  int    `json:"searchedFileCount"`
}

// symbolOpts selects the optional parts of a symbol.
type symbolOpts struct {
	scope, docs bool
}

// symbol describes a definition as a Kast Symbol; ok is false when the
// definition is gone.
func (r *kastRequest) symbol(id resolve.DefID, o symbolOpts) (kastSymbol, bool) {
	f := r.snap.File(id.Path)
	if f == nil || id.Index < 0 || int(id.Index) >= len(f.Defs) {
		return kastSymbol{}, false
	}
	d := f.Defs[id.Index]
	s := kastSymbol{FqName: naming.FQName(r.root, f, id.Index), Kind: naming.Kind(d.Kind), Location: r.location(id.Path, d.NameSpan)}
	if c := naming.Container(r.root, f, id.Index); c != "" {
		s.ContainingDeclaration = &c
	}
	if d.TypeName != "" {
		t := d.TypeName
		if s.Kind == "FUNCTION" {
			s.ReturnType = &t
		} else {
			s.Type = &t
		}
	}
	if v := naming.Visibility(f, id.Index); v != "" {
		s.Visibility = &v
	}
	if d.Kind.IsType() {
		for _, e := range r.snap.Resolver().Supertypes(id) {
			name := e.Name
			if len(e.Targets) > 0 && !e.Targets[0].Uncertain {
				if g := r.snap.File(e.Targets[0].Def.Path); g != nil {
					name = naming.FQName(r.root, g, e.Targets[0].Def.Index)
				}
			}
			s.Supertypes = append(s.Supertypes, name)
		}
	}
	if o.docs {
		if d.Doc != "" {
			doc := d.Doc
			s.Documentation = &doc
		}
		for _, p := range f.Defs {
			if p.Kind == analysis.KindParameter && p.Container == id.Index {
				s.Parameters = append(s.Parameters, parameterInfo{Name: p.Name, Type: p.TypeName})
			}
		}
	}
	if o.scope {
		s.DeclarationScope = r.scope(id.Path, d.FullSpan, true)
	}
	return s, true
}

// location is a Kast Location of a span: 1-based line and byte column, the
// whole line as preview.
func (r *kastRequest) location(path string, s analysis.Span) kastLocation {
	text, _ := r.text(path)
	return kastLocation{FilePath: path, StartOffset: s.Start, EndOffset: s.End,
		StartLine: s.StartPoint.Line + 1, StartColumn: s.StartPoint.Col + 1, Preview: edit.LineAt(text, s.Start)}
}

func (r *kastRequest) scope(path string, s analysis.Span, source bool) *declarationScope {
	ds := &declarationScope{StartOffset: s.Start, EndOffset: s.End, StartLine: s.StartPoint.Line + 1, EndLine: s.EndPoint.Line + 1}
	if text, err := r.text(path); err == nil && source && s.End <= len(text) {
		src := string(text[s.Start:s.End])
		ds.SourceText = &src
	}
	return ds
}

func sortLocations(l []kastLocation) {
	slices.SortFunc(l, func(a, b kastLocation) int {
		return cmp.Or(cmp.Compare(a.FilePath, b.FilePath), cmp.Compare(a.StartOffset, b.StartOffset))
	})
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// optional is s, or nil when empty: Kast omits absent optional strings.
func optional(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}
