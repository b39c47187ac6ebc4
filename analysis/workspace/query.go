package workspace

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/document"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Location is one query result: a place in a file and what is there. Lines
// and columns are 1-based, columns counted in UTF-8 bytes, as compilers print.
type Location struct {
	Path       string  `json:"path"`
	Line       int     `json:"line"`
	Col        int     `json:"col"`
	Name       string  `json:"name,omitempty"`
	Kind       string  `json:"kind,omitempty"`
	Container  string  `json:"container,omitempty"`
	Role       string  `json:"role,omitempty"`
	Message    string  `json:"message,omitempty"`
	Confidence float64 `json:"confidence,omitempty"`
	Uncertain  bool    `json:"uncertain,omitempty"`
	Via        string  `json:"via,omitempty"`
	Depth      int     `json:"depth,omitempty"`
}

func locationOf(path string, s analysis.Span) Location {
	return Location{Path: path, Line: s.StartPoint.Line + 1, Col: s.StartPoint.Col + 1}
}

// Offset converts a 1-based line and byte column in a file on disk to a
// byte offset.
func Offset(path string, line, col int) (int, error) {
	if line < 1 || col < 1 {
		return 0, fmt.Errorf("line and column are 1-based, got %d:%d", line, col)
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	doc := document.New("", "", 0, src)
	off, err := doc.Offset(document.Position{Line: line - 1, Character: col - 1}, document.UTF8)
	if errors.Is(err, document.ErrPosition) {
		// The document counts 0-based; say it as the user typed it,
		// against the lines an editor shows.
		lines := doc.LineCount()
		if len(src) > 0 && src[len(src)-1] == '\n' {
			lines--
		}
		return 0, fmt.Errorf("%w: line %d of %d", document.ErrPosition, line, lines)
	}
	return off, err
}

// Definition lists where the name at a position is defined, best first;
// guesses are marked Uncertain.
func (w *Workspace) Definition(path string, line, col int) ([]Location, error) {
	offset, err := Offset(path, line, col)
	if err != nil {
		return nil, err
	}
	var out []Location
	for _, c := range w.Resolver().DefinitionAt(path, offset) {
		l := locationOf(c.Def.Path, c.NameSpan)
		l.Name, l.Kind, l.Confidence, l.Uncertain, l.Via = c.Name, c.Kind.String(), c.Confidence, c.Uncertain, string(c.Via)
		out = append(out, l)
	}
	return out, nil
}

// Definition lists where the name at a position is defined, as the
// language server answers (navigate.Definition: confident candidates, and
// the package import, module file or namespace module it names), the
// snapshot's libraries included. uncertain adds the guesses, marked.
func (s *Snapshot) Definition(path string, line, col int, uncertain bool) ([]Location, error) {
	offset, err := Offset(path, line, col)
	if err != nil {
		return nil, err
	}
	cands := s.Resolver().DefinitionAt(path, offset)
	var out []Location
	for _, sym := range navigate.DefinitionOf(s, path, offset, cands) {
		l := locationOf(sym.Def.Path, sym.NameSpan)
		l.Name, l.Kind = sym.Name, sym.Kind.String()
		if i := slices.IndexFunc(cands, func(c resolve.Candidate) bool { return c.Def == sym.Def }); i >= 0 {
			l.Confidence, l.Via = cands[i].Confidence, string(cands[i].Via)
		}
		out = append(out, l)
	}
	if !uncertain {
		return out, nil
	}
	for _, c := range cands {
		if c.Uncertain {
			l := locationOf(c.Def.Path, c.NameSpan)
			l.Name, l.Kind, l.Confidence, l.Uncertain, l.Via = c.Name, c.Kind.String(), c.Confidence, true, string(c.Via)
			out = append(out, l)
		}
	}
	return out, nil
}

// References lists the references of the definition at (or named at) a
// position. Nothing comes back when that definition is itself a guess.
func (w *Workspace) References(path string, line, col int) ([]Location, error) {
	offset, err := Offset(path, line, col)
	if err != nil {
		return nil, err
	}
	r := w.Resolver()
	cands := r.DefinitionAt(path, offset)
	if len(cands) == 0 || cands[0].Uncertain {
		return nil, nil
	}
	var out []Location
	for _, ref := range r.References(cands[0].Def) {
		l := locationOf(ref.Ref.Path, ref.Span)
		l.Role, l.Confidence, l.Uncertain = RoleName(ref.Role), ref.Confidence, ref.Uncertain
		out = append(out, l)
	}
	return out, nil
}

// RoleName spells a role set as "call,read".
func RoleName(r analysis.Role) string {
	var names []string
	for _, x := range []struct {
		role analysis.Role
		name string
	}{{analysis.RoleCall, "call"}, {analysis.RoleRead, "read"}, {analysis.RoleWrite, "write"}, {analysis.RoleType, "type"},
		{analysis.RoleImport, "import"}, {analysis.RoleInheritance, "inheritance"}} {
		if r&x.role != 0 {
			names = append(names, x.name)
		}
	}
	return strings.Join(names, ",")
}

// Symbols lists up to limit declarations matching a fuzzy pattern, best
// first. Parameters, type parameters and lambdas are left out as noise.
func (w *Workspace) Symbols(pattern string, limit int) ([]Location, error) {
	hits, err := w.Index.DefsFuzzy(pattern, limit*4)
	if err != nil {
		return nil, err
	}
	var out []Location
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if !h.Kind.IsSymbol() {
			continue
		}
		l := locationOf(h.Path, h.NameSpan)
		l.Name, l.Kind, l.Container = h.Name, h.Kind.String(), h.Container
		out = append(out, l)
	}
	return out, nil
}

// Outline lists a file's declarations in source order, with their depth.
func (w *Workspace) Outline(path string) ([]Location, error) {
	facts, err := w.Index.Facts(path)
	if err != nil {
		return nil, err
	}
	var out []Location
	for _, it := range facts.Outline() {
		d := facts.Defs[it.Def]
		l := locationOf(path, d.NameSpan)
		l.Name, l.Kind, l.Depth = d.Name, d.Kind.String(), it.Depth
		out = append(out, l)
	}
	return out, nil
}

// Diagnostics lists a file's syntax errors.
func (w *Workspace) Diagnostics(path string) ([]Location, error) {
	facts, err := w.Index.Facts(path)
	if err != nil {
		return nil, err
	}
	var out []Location
	for _, e := range facts.Errors {
		l := locationOf(path, e.Span)
		l.Message = e.Message
		out = append(out, l)
	}
	return out, nil
}

// Format prints locations one per line, paths relative to root where they
// lie inside it, nested by Depth: the shape of compiler and grep output.
func Format(root string, locs []Location) string {
	var b strings.Builder
	for _, l := range locs {
		rel, err := filepath.Rel(root, l.Path)
		if err != nil || strings.HasPrefix(rel, "..") {
			rel = l.Path
		}
		var extra []string
		for _, s := range []string{l.Kind, l.Name, l.Role, l.Message} {
			if s != "" {
				extra = append(extra, s)
			}
		}
		if l.Container != "" {
			extra = append(extra, "in "+l.Container)
		}
		if l.Via != "" {
			extra = append(extra, fmt.Sprintf("(%s, confidence %.2f)", l.Via, l.Confidence))
		}
		if l.Uncertain {
			extra = append(extra, "uncertain")
		}
		fmt.Fprintf(&b, "%s%s:%d:%d: %s\n", strings.Repeat("  ", l.Depth), filepath.ToSlash(rel), l.Line, l.Col, strings.Join(extra, " "))
	}
	return b.String()
}
