package symbolquery

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/kast-dev/kast/analysis/edit"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Selector names a declaration by simple name, with hints.
type Selector struct {
	Name           string
	Kind           string // lowercase request kind ("class"), "" for any
	ContainingType string
	FileHint       string
	Line           *int    // 1-based line hint
	Snippet        *string // code expected on the declaration's line
}

// Candidate is a declaration ranked for a selector.
type Candidate struct {
	ID      resolve.DefID
	FQName  string
	Score   int // at most 100
	Reasons []string
}

// Candidates ranks the outline declarations whose names contain the
// selector's name, scored as Kast's rankCandidate does: base 20, exact name
// +35 (else +10), kind +15 (mismatch −30), containing type +15, file hint
// +15, line distance up to +10, snippet tokens +2 each up to 10; capped at
// 100. Ties go by path, line, then name. text reads a file's bytes, for
// the snippet.
func Candidates(ctx context.Context, snap *workspace.Snapshot, root string, text func(path string) []byte, s Selector) ([]Candidate, error) {
	type ranked struct {
		Candidate
		line int
	}
	simple, qualifier, shape := splitOverload(s.Name)
	name := strings.ToLower(simple)
	var out []ranked
	for _, path := range snap.Files() {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		f := snap.File(path)
		if f == nil {
			continue
		}
		for _, it := range f.Outline() {
			d := f.Defs[it.Def]
			if !strings.Contains(strings.ToLower(d.Name), name) {
				continue
			}
			c := ranked{Candidate{ID: resolve.DefID{Path: path, Index: it.Def}, FQName: naming.FQName(root, f, it.Def), Score: 20}, d.NameSpan.StartPoint.Line + 1}
			add := func(n int, reason string) { c.Score += n; c.Reasons = append(c.Reasons, reason) }
			if d.Name == simple {
				add(35, "exact name match")
			} else {
				add(10, "name contains "+simple)
			}
			if qualifier != "" {
				if fq := naming.FQName(root, f, it.Def); fq == s.Name || strings.HasSuffix(fq, "."+s.Name) ||
					strings.HasSuffix(naming.Container(root, f, it.Def), qualifier) {
					add(15, "qualified name matches "+qualifier)
				}
			}
			if shape != "" {
				// "route(String)" names one overload: the others stay
				// candidates, ranked below it.
				switch own := naming.ParamShape(d); {
				case own == shape:
					add(25, "parameter types match "+shape)
				case own != "":
					add(-25, "parameter types are "+own)
				}
			}
			if s.Kind != "" {
				if naming.RequestKind(s.Kind) == naming.Kind(d.Kind) {
					add(15, "kind matches "+s.Kind)
				} else {
					add(-30, "kind is not "+s.Kind)
				}
			}
			if ct := s.ContainingType; ct != "" {
				if c2 := naming.Container(root, f, it.Def); c2 != "" && (c2 == ct || strings.HasSuffix(c2, "."+ct) || strings.HasSuffix(ct, "."+c2)) {
					add(15, "containing type matches "+ct)
				}
			}
			if s.FileHint != "" && strings.HasSuffix(path, s.FileHint) {
				add(15, "file matches hint")
			}
			if s.Line != nil {
				switch dist := abs(c.line - *s.Line); {
				case dist == 0:
					add(10, "on the hinted line")
				case dist <= 2:
					add(7, "within 2 lines of the hint")
				case dist <= 5:
					add(4, "within 5 lines of the hint")
				}
			}
			if s.Snippet != nil {
				if n := overlap(*s.Snippet, edit.LineAt(text(path), d.NameSpan.Start)); n > 0 {
					add(min(2*n, 10), fmt.Sprintf("%d snippet tokens match", n))
				}
			}
			c.Score = min(c.Score, 100)
			out = append(out, c)
		}
	}
	slices.SortFunc(out, func(a, b ranked) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.ID.Path, b.ID.Path), cmp.Compare(a.line, b.line), cmp.Compare(a.FQName, b.FQName))
	})
	cs := make([]Candidate, len(out))
	for i, c := range out {
		cs[i] = c.Candidate
	}
	return cs, nil
}

func abs(n int) int { return max(n, -n) }

// splitOverload splits a selector's name, "pkg.Router.route(String)", into
// the simple name, what qualifies it ("pkg.Router") and the parameter
// types ("(String)", spaces dropped); the last two may be "".
func splitOverload(name string) (simple, qualifier, shape string) {
	simple = name
	if open := strings.IndexByte(name, '('); open > 0 && strings.HasSuffix(name, ")") {
		simple, shape = name[:open], strings.ReplaceAll(name[open:], " ", "")
	}
	if dot := strings.LastIndexByte(simple, '.'); dot > 0 {
		qualifier, simple = simple[:dot], simple[dot+1:]
	}
	return simple, qualifier, shape
}

// overlap counts the distinct identifier tokens of snippet found in line.
func overlap(snippet, line string) int {
	isSep := func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }
	in := map[string]bool{}
	for _, t := range strings.FieldsFunc(line, isSep) {
		in[t] = true
	}
	n := 0
	for _, t := range strings.FieldsFunc(snippet, isSep) {
		if in[t] {
			n++
			delete(in, t) // count each token once
		}
	}
	return n
}

// Pick is the best candidate with, when the name was ambiguous, how many
// there were and up to three alternatives, as Kast reports them. cs must
// not be empty.
func Pick(cs []Candidate) (best Candidate, count *int, alternatives []string) {
	best = cs[0]
	if len(cs) > 1 {
		n := len(cs)
		count = &n
		for _, c := range cs[1:min(len(cs), 4)] {
			alternatives = append(alternatives, c.FQName)
		}
	}
	return best, count, alternatives
}
