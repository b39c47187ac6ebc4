package navigate

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Info is what hover shows: the name's span under the cursor, and markdown
// with the definition's signature in a code block and its doc comment.
type Info struct {
	Span     analysis.Span
	Markdown string
}

// Hover describes the definition the name at offset resolves to.
func Hover(s Snapshot, path string, offset int) (Info, bool) {
	sym, ok := At(s, path, offset)
	if !ok {
		return Info{}, false
	}
	span := sym.NameSpan
	if f := s.File(path); f != nil {
		if i := refAt(f, offset); i != analysis.None {
			span = f.Refs[i].Span
		}
	}
	return Info{Span: span, Markdown: Describe(s, sym.Def)}, true
}

// Describe renders a definition as markdown.
func Describe(s resolve.Workspace, id resolve.DefID) string {
	f := s.File(id.Path)
	if f == nil || id.Index < 0 || int(id.Index) >= len(f.Defs) {
		return ""
	}
	d := f.Defs[id.Index]
	sig := d.Signature
	if f.Lang == "go" {
		sig = goDeclaration(s, f, d)
	}
	if sig == "" {
		sig = d.Kind.String() + " " + d.Name
		if d.TypeName != "" {
			sig += ": " + d.TypeName
		}
	}
	var b strings.Builder
	b.WriteString("```" + f.Lang + "\n" + sig + "\n```")
	if d.Doc != "" {
		b.WriteString("\n\n" + d.Doc)
	}
	return b.String()
}

func refAt(f *analysis.FileFacts, offset int) int32 {
	best := analysis.None
	for i, r := range f.Refs {
		if r.Span.Contains(offset) && (best == analysis.None || r.Span.End-r.Span.Start < f.Refs[best].Span.End-f.Refs[best].Span.Start) {
			best = int32(i)
		}
	}
	return best
}

// Signature is the signature of a call being written.
type Signature struct {
	Label  string
	Params [][2]int // byte ranges of the parameters in Label
	Active int      // the parameter the cursor is in
	Doc    string
}

// SignatureHelp finds the call whose argument list holds offset and
// describes the function it calls.
func SignatureHelp(s Snapshot, path string, offset int, text []byte) (Signature, bool) {
	open, commas := openParen(text, offset)
	if open < 0 {
		return Signature{}, false
	}
	name := open
	for name > 0 && (text[name-1] == ' ' || text[name-1] == '\t') {
		name--
	}
	if name == 0 || !isIdent(text[name-1]) {
		return Signature{}, false
	}
	sym, ok := At(s, path, name-1)
	if !ok {
		return Signature{}, false
	}
	d := s.File(sym.Def.Path).Defs[sym.Def.Index]
	label := d.Signature
	if label == "" {
		return Signature{}, false
	}
	params := paramRanges(label)
	return Signature{Label: label, Params: params, Active: min(commas, max(0, len(params)-1)), Doc: d.Doc}, true
}

// openParen scans back from offset to the unclosed '(' it lies in and counts
// the commas between them at that nesting level; -1 when there is none.
// Strings are not skipped: this is a hint, not a parse.
func openParen(text []byte, offset int) (int, int) {
	depth, commas := 0, 0
	for i := min(offset, len(text)) - 1; i >= 0; i-- {
		switch text[i] {
		case ')', ']', '}':
			depth++
		case '[', '{':
			if depth == 0 {
				return -1, 0
			}
			depth--
		case '(':
			if depth == 0 {
				return i, commas
			}
			depth--
		case ',':
			if depth == 0 {
				commas++
			}
		case ';':
			if depth == 0 {
				return -1, 0
			}
		}
	}
	return -1, 0
}

func isIdent(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// paramRanges splits the first parenthesised list of a signature at its
// top-level commas.
func paramRanges(sig string) [][2]int {
	open := strings.IndexByte(sig, '(')
	if open < 0 {
		return nil
	}
	var out [][2]int
	depth, start := 0, open+1
	for i := open + 1; i < len(sig); i++ {
		switch sig[i] {
		case '(', '[', '{', '<':
			depth++
		case ']', '}', '>':
			depth--
		case ')':
			if depth == 0 {
				if strings.TrimSpace(sig[start:i]) != "" {
					out = append(out, trimRange(sig, start, i))
				}
				return out
			}
			depth--
		case ',':
			if depth == 0 {
				out = append(out, trimRange(sig, start, i))
				start = i + 1
			}
		}
	}
	return out
}

func trimRange(s string, start, end int) [2]int {
	for start < end && s[start] == ' ' {
		start++
	}
	for end > start && s[end-1] == ' ' {
		end--
	}
	return [2]int{start, end}
}

// maxHoverLines bounds a Go type declaration shown whole in a hover.
const maxHoverLines = 20

// goDeclaration renders a Go definition as its declaration reads, with its
// keyword ("type A = B" for an alias, "type B A" for a defined type), a
// variable with its type where the declaration or the initializer's
// literal shows it, a short struct or interface in full. "" leaves the
// generic rendering.
func goDeclaration(s resolve.Workspace, f *analysis.FileFacts, d analysis.Def) string {
	sig := d.Signature
	switch {
	case sig == "":
		return ""
	case d.Kind == analysis.KindStruct || d.Kind == analysis.KindInterface:
		if src := sourceOf(s, f.Path, d.FullSpan); src != "" && strings.Count(src, "\n") < maxHoverLines {
			return "type " + src
		}
		return "type " + sig
	case d.Kind == analysis.KindTypeAlias && d.Container == analysis.None:
		return "type " + sig
	case d.Kind == analysis.KindConstant && !strings.HasPrefix(sig, "const "):
		return "const " + sig
	case d.Kind == analysis.KindVariable && !strings.HasPrefix(sig, "var "):
		name, rest, _ := strings.Cut(sig, " ")
		if name != d.Name {
			return "var " + sig
		}
		declared, init := rest, ""
		if i := strings.Index(rest, "="); i >= 0 {
			declared, init = strings.TrimSpace(strings.TrimSuffix(rest[:i], ":")), rest[i+1:]
		}
		if t := cmpOr(declared, d.TypeName, literalType(init)); t != "" {
			return "var " + d.Name + " " + t
		}
		return "var " + sig
	}
	return sig
}

// literalType is the type an initializer's literal shows: T of "T{…}",
// *T of "&T{…}", string, rune, int or float64 of a basic literal; "".
func literalType(init string) string {
	init = strings.TrimSpace(init)
	switch {
	case init == "":
		return ""
	case init[0] == '"' || init[0] == '`':
		return "string"
	case init[0] == '\'':
		return "rune"
	case init[0] >= '0' && init[0] <= '9':
		if strings.ContainsAny(init, ".eE") && !strings.HasPrefix(init, "0x") {
			return "float64"
		}
		return "int"
	case init == "true" || init == "false":
		return "bool"
	}
	ptr := ""
	if init[0] == '&' {
		ptr, init = "*", init[1:]
	}
	if i := strings.IndexByte(init, '{'); i > 0 && !strings.ContainsAny(init[:i], "()= ") {
		return ptr + init[:i]
	}
	return ""
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}

// sourceOf reads a span of a file's text, when the workspace can.
func sourceOf(s resolve.Workspace, path string, sp analysis.Span) string {
	t, ok := s.(interface{ Text(string) ([]byte, bool) })
	if !ok {
		return ""
	}
	src, ok := t.Text(path)
	if !ok || sp.Start < 0 || sp.End > len(src) || sp.Start >= sp.End {
		return ""
	}
	return string(src[sp.Start:sp.End])
}
