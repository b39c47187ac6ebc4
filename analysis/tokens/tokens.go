// Package tokens classifies a file's tokens for semantic highlighting:
// keywords, comments, strings and numbers from the syntax tree, names from
// the file's facts (declarations by kind, uses by what they resolve to in the
// file, else by how they are used).
package tokens

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/syntax"
)

// Type is a semantic token type; Types spells them in the protocol's words,
// in the order the legend lists them.
type Type uint32

const (
	Namespace Type = iota
	TypeName
	Class
	Enum
	Interface
	Struct
	TypeParameter
	Parameter
	Variable
	Property
	EnumMember
	Function
	Method
	Keyword
	Comment
	String
	Number
)

// Types is the legend's token types.
var Types = []string{"namespace", "type", "class", "enum", "interface", "struct", "typeParameter", "parameter",
	"variable", "property", "enumMember", "function", "method", "keyword", "comment", "string", "number"}

// Modifier bits; Modifiers is the legend's modifiers.
const (
	Declaration uint32 = 1 << iota
)

// Modifiers is the legend's token modifiers.
var Modifiers = []string{"declaration"}

// Token is one classified span; spans never cross lines.
type Token struct {
	Span      analysis.Span
	Type      Type
	Modifiers uint32
}

// Tokens classifies the tokens of src, in order.
func Tokens(ctx context.Context, path string, src []byte, f *analysis.FileFacts) ([]Token, error) {
	l, ok := lang.ForPath(path)
	if !ok {
		return nil, fmt.Errorf("%s: unsupported language", path)
	}
	tree, err := l.Syntax.Parse(ctx, src)
	if err != nil {
		return nil, err
	}
	defer tree.Close()
	names := nameTokens(f)
	var out []Token
	var visit func(n syntax.Node)
	visit = func(n syntax.Node) {
		t := n.Type()
		kids := n.Children()
		switch {
		case strings.Contains(t, "comment"):
			out = appendLines(out, tree, n.Span(), Comment, 0)
			return
		case n.IsNamed() && (strings.Contains(t, "string") || t == "character_literal") && t != "string_content":
			if !hasInterpolation(kids) {
				out = appendLines(out, tree, n.Span(), String, 0)
				return
			}
		case len(kids) == 0 && n.IsNamed() && isNumber(t):
			out = append(out, Token{Span: n.Span(), Type: Number})
			return
		case len(kids) == 0 && !n.IsNamed() && isWord(t):
			out = append(out, Token{Span: n.Span(), Type: Keyword})
			return
		case len(kids) == 0:
			if tok, ok := names[n.Start()]; ok && tok.Span.End == n.End() {
				out = append(out, tok)
			}
			return
		}
		for _, c := range kids {
			visit(c)
		}
	}
	visit(tree.Root())
	slices.SortStableFunc(out, func(a, b Token) int { return a.Span.Start - b.Span.Start })
	return slices.CompactFunc(out, func(a, b Token) bool { return a.Span.Start == b.Span.Start }), nil
}

func hasInterpolation(kids []syntax.Node) bool {
	for _, k := range kids {
		if t := k.Type(); strings.Contains(t, "interpolation") || strings.Contains(t, "substitution") || t == "template_substitution" {
			return true
		}
	}
	return false
}

// appendLines adds a token per line of a span that may cross lines.
func appendLines(out []Token, tree *syntax.Tree, s analysis.Span, t Type, mods uint32) []Token {
	if s.StartPoint.Line == s.EndPoint.Line {
		return append(out, Token{Span: s, Type: t, Modifiers: mods})
	}
	src := tree.Source()
	start := s.Start
	for i := s.Start; i <= s.End; i++ {
		if i == s.End || src[i] == '\n' {
			if i > start {
				out = append(out, Token{Span: tree.Span(start, i), Type: t, Modifiers: mods})
			}
			start = i + 1
		}
	}
	return out
}

func isNumber(t string) bool {
	for _, w := range []string{"integer", "float", "number", "real_literal", "hex_literal", "long_literal", "decimal"} {
		if strings.Contains(t, w) {
			return true
		}
	}
	return false
}

// isWord reports whether an anonymous token is a keyword such as "fun".
func isWord(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if !(r >= 'a' && r <= 'z' || r == '_') {
			return false
		}
	}
	return true
}

// nameTokens classifies every declared and used name of the file by start.
func nameTokens(f *analysis.FileFacts) map[int]Token {
	out := map[int]Token{}
	if f == nil {
		return out
	}
	for _, d := range f.Defs {
		out[d.NameSpan.Start] = Token{Span: d.NameSpan, Type: ofKind(d.Kind), Modifiers: Declaration}
	}
	// Uses resolve within the file only: highlighting must stay cheap.
	r := resolve.New(resolve.NewMemory(f))
	for i, ref := range f.Refs {
		if _, ok := out[ref.Span.Start]; ok {
			continue
		}
		t := ofRole(ref)
		if c := r.Resolve(resolve.RefID{Path: f.Path, Index: int32(i)}); len(c) > 0 && !c[0].Uncertain {
			t = ofKind(c[0].Kind)
		}
		out[ref.Span.Start] = Token{Span: ref.Span, Type: t}
	}
	return out
}

func ofKind(k analysis.Kind) Type {
	switch k {
	case analysis.KindPackage, analysis.KindModule:
		return Namespace
	case analysis.KindClass, analysis.KindObject:
		return Class
	case analysis.KindInterface, analysis.KindTrait:
		return Interface
	case analysis.KindEnum:
		return Enum
	case analysis.KindEnumEntry:
		return EnumMember
	case analysis.KindStruct:
		return Struct
	case analysis.KindTypeAlias:
		return TypeName
	case analysis.KindFunction, analysis.KindLambda:
		return Function
	case analysis.KindMethod, analysis.KindConstructor:
		return Method
	case analysis.KindProperty, analysis.KindField:
		return Property
	case analysis.KindParameter:
		return Parameter
	case analysis.KindTypeParameter:
		return TypeParameter
	}
	return Variable
}

func ofRole(ref analysis.Ref) Type {
	switch {
	case ref.Role&(analysis.RoleType|analysis.RoleInheritance) != 0:
		return TypeName
	case ref.Role&analysis.RoleCall != 0:
		if ref.Qualifier != "" {
			return Method
		}
		return Function
	case ref.Role&analysis.RoleImport != 0:
		return Namespace
	case ref.Qualifier != "":
		return Property
	}
	return Variable
}
