// Package rename plans renames: the edits that rename a definition and every
// use of it, refused when kast cannot be sure it has found them all.
package rename

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Snapshot is what renaming reads.
type Snapshot interface {
	navigate.Snapshot
	InWorkspace(path string) bool
}

// Edit replaces a span of a file with NewText.
type Edit struct {
	Path    string
	Span    analysis.Span
	NewText string
}

// Error says why a rename is refused, in words for the user.
type Error struct {
	Msg string
	// Unsure is set when kast cannot tell which declaration a name binds to
	// (an ambiguous overload call, an unresolved declaration): renaming
	// could edit a use another declaration owns. Candidates are then the
	// declarations in question, best first.
	Unsure     bool
	Candidates []resolve.DefID
	// Conflict is set when kast knows the uses but the new name cannot
	// keep one of them bound (a Java getter Kotlin reads as a property,
	// renamed to a name that is not a getter's).
	Conflict bool
}

func (e *Error) Error() string { return e.Msg }

func refuse(format string, args ...any) error { return &Error{Msg: fmt.Sprintf(format, args...)} }

// unsure refuses a rename whose uses may belong to one of cands.
func unsure(cands []resolve.Candidate, format string, args ...any) error {
	e := &Error{Msg: fmt.Sprintf(format, args...), Unsure: true}
	for _, c := range cands {
		if c.Uncertain && len(e.Candidates) > 0 {
			break
		}
		if !slices.Contains(e.Candidates, c.Def) {
			e.Candidates = append(e.Candidates, c.Def)
		}
	}
	return e
}

// Prepare checks that the name at offset can be renamed and returns its span
// there and the current name.
func Prepare(s Snapshot, path string, offset int) (analysis.Span, string, error) {
	f := s.File(path)
	if f == nil {
		return analysis.Span{}, "", refuse("cannot rename: kast has no facts for this file (unsupported language or unknown file)")
	}
	span, name, ok := nameAt(f, offset)
	if !ok {
		return analysis.Span{}, "", refuse("cannot rename: there is no name at this position")
	}
	if _, err := target(s, path, offset, name); err != nil {
		return analysis.Span{}, "", err
	}
	return span, name, nil
}

// Rename returns the edits that rename the definition at offset, and every
// confident use of it, to newName.
func Rename(s Snapshot, path string, offset int, newName string) ([]Edit, error) {
	f := s.File(path)
	if f == nil {
		return nil, refuse("cannot rename: kast has no facts for this file (unsupported language or unknown file)")
	}
	_, name, ok := nameAt(f, offset)
	if !ok {
		return nil, refuse("cannot rename: there is no name at this position")
	}
	if !validName(newName) {
		return nil, refuse("cannot rename %s: %q is not a valid identifier", name, newName)
	}
	def, err := target(s, path, offset, name)
	if err != nil {
		return nil, err
	}
	// Renamed where the other JVM language uses it (Kotlin's p.name for
	// Java's getName), the declaration takes the new name in its own form.
	declName, ok := s.Resolver().RenamedDecl(def, name, newName)
	if !ok {
		return nil, &Error{Msg: fmt.Sprintf("cannot rename %s: it is %s's name in another language, and %s has no counterpart there", name, s.File(def.Path).Defs[def.Index].Name, newName), Conflict: true}
	}
	newName = declName
	members := group(s, def)
	var edits []Edit
	for _, m := range members {
		edits = append(edits, Edit{m.Path, s.File(m.Path).Defs[m.Index].NameSpan, newName})
	}
	for _, m := range members {
		for _, r := range s.Resolver().References(m) {
			if r.Uncertain {
				continue
			}
			if r.Ambiguous {
				// Editing a call another overload may own would break it.
				cands := s.Resolver().Resolve(r.Ref)
				return nil, unsure(cands, "cannot rename %s: the call at %s:%d may bind to another overload: %s",
					name, r.Ref.Path, r.Span.StartPoint.Line+1, listed(s, cands))
			}
			if cands, ok := boundElsewhere(s, r.Ref, members); ok {
				// Tied with a declaration of another symbol (a Go function
				// and a method of one name, a member of an unknown receiver):
				// kast cannot tell whose use it is.
				return nil, unsure(cands, "cannot rename %s: the use at %s:%d may belong to another declaration: %s",
					name, r.Ref.Path, r.Span.StartPoint.Line+1, listed(s, cands))
			}
			if !s.InWorkspace(r.Ref.Path) {
				return nil, refuse("cannot rename %s: it is used in %s, outside the workspace", name, r.Ref.Path)
			}
			text, why := s.Resolver().RenamedUse(m, r.Ref, newName)
			if why != "" {
				return nil, &Error{Msg: fmt.Sprintf("cannot rename %s: %s", name, why), Conflict: true}
			}
			edits = append(edits, Edit{r.Ref.Path, r.Span, text})
		}
	}
	slices.SortFunc(edits, func(a, b Edit) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Span.Start, b.Span.Start))
	})
	return slices.CompactFunc(edits, func(a, b Edit) bool { return a.Path == b.Path && a.Span == b.Span }), nil
}

// target is the definition to rename, when it is confidently resolved and
// inside the workspace.
func target(s Snapshot, path string, offset int, name string) (resolve.DefID, error) {
	cands := s.Resolver().DefinitionAt(path, offset)
	if len(cands) == 0 {
		return resolve.DefID{}, refuse("cannot rename %s: kast cannot find its declaration", name)
	}
	if cands[0].Uncertain || len(cands) > 1 && !cands[1].Uncertain && !slices.Contains(group(s, cands[0].Def), cands[1].Def) {
		return resolve.DefID{}, unsure(cands, "cannot rename %s: its declaration is not confidently resolved; candidates: %s", name, listed(s, cands))
	}
	c := cands[0]
	if lib, ok := s.(interface{ InLibrary(string) string }); ok && lib.InLibrary(c.Def.Path) != "" {
		return resolve.DefID{}, refuse("cannot rename %s: it is declared in the library %s (%s), which kast never edits", name, lib.InLibrary(c.Def.Path), c.Def.Path)
	}
	if !s.InWorkspace(c.Def.Path) {
		return resolve.DefID{}, refuse("cannot rename %s: it is declared in %s, outside the workspace", name, c.Def.Path)
	}
	if c.Name != name && !slices.Contains(s.Resolver().UseNames(c.Def), name) {
		// An alias or a constructor named after its class: renaming the use
		// alone would break the link. (The other JVM language's name for
		// it, Kotlin's property for a Java getter, is renamed with it.)
		return resolve.DefID{}, refuse("cannot rename %s: it refers to %s by another name", name, c.Name)
	}
	return c.Def, nil
}

// oneFunctionLangs declare one function several times under one name:
// TypeScript overload signatures before the implementation, Python
// @overload stubs before theirs. They are one symbol, renamed together.
var oneFunctionLangs = map[string]bool{"typescript": true, "tsx": true, "javascript": true, "python": true}

// group is the declarations renamed with def: def and, in
// oneFunctionLangs, the other callables of its name in its container.
func group(s Snapshot, def resolve.DefID) []resolve.DefID {
	f := s.File(def.Path)
	d := f.Defs[def.Index]
	out := []resolve.DefID{def}
	if !oneFunctionLangs[f.Lang] || !callable(d.Kind) {
		return out
	}
	for i, o := range f.Defs {
		if int32(i) != def.Index && o.Name == d.Name && o.Container == d.Container && callable(o.Kind) {
			out = append(out, resolve.DefID{Path: def.Path, Index: int32(i)})
		}
	}
	return out
}

func callable(k analysis.Kind) bool {
	return k == analysis.KindFunction || k == analysis.KindMethod
}

// boundElsewhere reports whether a reference ties as surely to a
// declaration outside members, with its candidates.
func boundElsewhere(s Snapshot, ref resolve.RefID, members []resolve.DefID) ([]resolve.Candidate, bool) {
	cands := s.Resolver().Resolve(ref)
	for _, c := range cands {
		if c.Uncertain || c.Confidence < cands[0].Confidence {
			break
		}
		if !slices.Contains(members, c.Def) {
			return cands, true
		}
	}
	return nil, false
}

// nameAt finds the definition name or reference under offset.
func nameAt(f *analysis.FileFacts, offset int) (analysis.Span, string, bool) {
	for _, d := range f.Defs {
		if d.NameSpan.Contains(offset) {
			return d.NameSpan, d.Name, true
		}
	}
	best := analysis.None
	for i, r := range f.Refs {
		if r.Span.Contains(offset) && (best == analysis.None || r.Span.End-r.Span.Start < f.Refs[best].Span.End-f.Refs[best].Span.Start) {
			best = int32(i)
		}
	}
	if best == analysis.None {
		return analysis.Span{}, "", false
	}
	return f.Refs[best].Span, f.Refs[best].Name, true
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || r == '$' || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return utf8.ValidString(s)
}

// listed names the confident candidates, "name(signature) at file:line".
func listed(s Snapshot, cands []resolve.Candidate) string {
	var out []string
	for _, c := range cands {
		if c.Uncertain {
			break
		}
		d := s.File(c.Def.Path).Defs[c.Def.Index]
		out = append(out, fmt.Sprintf("%q at %s:%d", d.Signature, c.Def.Path, d.NameSpan.StartPoint.Line+1))
	}
	return strings.Join(out, "; ")
}
