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
