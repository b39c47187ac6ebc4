// Last-resort guesses by name and the final ordering of candidates.

package resolve

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// byName is the last resort: every definition with the name (members only:
// declared in a type or with a receiver), each with a confidence below the
// threshold that shrinks with the number of candidates. The guesses come
// from the name tables: a common name has thousands, and decoding their
// files cost most of a failed lookup. Only a definition outside Go that
// may be an extension is looked at in its file.
func (r *Resolver) byName(name string, role analysis.Role, members bool) []Candidate {
	// Counted first, then filled: a common name's thousands of guesses,
	// grown by append, were a fifth of the reference pass's CPU on ten
	// million lines, in copying and in the collections it caused.
	defs := r.defs(name)
	n := 0
	for _, e := range defs {
		if r.guessFit(e, role, members) > 0 {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	out := make([]Candidate, 0, n)
	for _, e := range defs {
		if fit := r.guessFit(e, role, members); fit > 0 {
			out = append(out, Candidate{Def: e.DefID, Name: name, Kind: e.Kind, NameSpan: e.NameSpan, Confidence: confWorkspace * fit / float64(n), Via: ViaWorkspace})
		}
	}
	return out
}

// guessFit is how well the definition fits as a guess for a reference in
// role, 0 when it is none: parameters and locals never are, and with
// members only those declared in a type or with a receiver.
func (r *Resolver) guessFit(e DefEntry, role analysis.Role, members bool) float64 {
	fit := kindFit(role, e.Kind)
	if fit == 0 || e.Kind == analysis.KindParameter || e.Kind == analysis.KindVariable && e.Nested {
		return 0
	}
	if members && !e.Nested {
		// A Go definition the name table lists at the top level is a
		// member only when it is a method (with a receiver).
		if e.Lang == "go" && e.Kind != analysis.KindMethod || e.Lang != "go" && !mayHaveReceiver(e) {
			return 0
		}
		if e.Lang != "go" {
			if _, d, ok := r.entry(e.DefID); !ok || d.Container == analysis.None && d.Receiver == "" {
				return 0
			}
		}
	}
	return fit
}

// add appends the candidate when its kind fits the reference's role.
func (r *Resolver) add(out []Candidate, file string, index int32, conf float64, via Via, role analysis.Role) []Candidate {
	_, d, ok := r.entry(DefID{file, index})
	if !ok {
		return out
	}
	fit := kindFit(role, d.Kind)
	if fit == 0 {
		return out
	}
	return append(out, r.candidate(DefID{file, index}, conf*fit, via))
}

func (r *Resolver) candidate(id DefID, conf float64, via Via) Candidate {
	d := r.file(id.Path).Defs[id.Index]
	return Candidate{Def: id, Name: d.Name, Kind: d.Kind, NameSpan: d.NameSpan, Confidence: conf, Via: via}
}

// tied reports whether another candidate of another file is as confident
// as c[i].
func tied(c []Candidate, i int) bool {
	for j, x := range c {
		if j != i && x.Confidence == c[i].Confidence && x.Def.Path != c[i].Def.Path {
			return true
		}
	}
	return false
}

// kindFit scores how well a definition kind fits a reference role: 1 is a
// natural fit, 0 excludes the kind.
func kindFit(role analysis.Role, k analysis.Kind) float64 {
	switch {
	case role&(analysis.RoleType|analysis.RoleInheritance) != 0:
		if k.IsType() || k == analysis.KindTypeParameter {
			return 1
		}
		if k == analysis.KindPackage || k == analysis.KindModule {
			return 0.8
		}
		return 0
	case role&analysis.RoleCall != 0:
		switch k {
		case analysis.KindFunction, analysis.KindMethod:
			return 1
		case analysis.KindClass, analysis.KindStruct, analysis.KindObject, analysis.KindEnum, analysis.KindEnumEntry:
			return 0.98 // constructor calls such as Foo() name the class
		case analysis.KindConstructor:
			return 0.96
		case analysis.KindInterface, analysis.KindTrait, analysis.KindTypeAlias, analysis.KindTypeParameter:
			return 0.6
		}
		return 0.8 // a variable holding a function
	}
	if k == analysis.KindConstructor {
		return 0
	}
	return 1
}

// finish sorts candidates best first, drops duplicates and flags the
// uncertain ones. Among equally confident Go candidates, those built for
// the platform of the file from come first (see goBuildFit).
func (r *Resolver) finish(from string, c []Candidate) []Candidate {
	// A candidate's platform fit is worked out once, not at every comparison.
	type fitted struct {
		c   Candidate
		fit int
	}
	fs := make([]fitted, len(c))
	for i, x := range c {
		fs[i] = fitted{x, 2 * goBuildFit(from, x.Def.Path)}
	}
	if strings.HasSuffix(from, ".go") && len(c) > 1 && len(c) <= maxConstrained {
		// Files whose names fit alike may still be told apart by their
		// //go:build lines (syscall_linux_mips64x.go is for mips64 only):
		// read only for certain candidates tied with another.
		for i := range fs {
			if x := fs[i].c; fs[i].fit == 2 && x.Confidence >= r.threshold && tied(c, i) &&
				strings.HasSuffix(x.Def.Path, ".go") && !r.constraintFits(from, x.Def.Path) {
				fs[i].fit = 1
			}
		}
	}
	slices.SortStableFunc(fs, func(a, b fitted) int {
		if n := cmp.Compare(b.c.Confidence, a.c.Confidence); n != 0 {
			return n
		}
		return cmp.Compare(b.fit, a.fit)
	})
	for i := range fs {
		c[i] = fs[i].c
	}
	c = r.withoutUnreachable(withoutStubbedSources(r.withoutOverloads(c)))
	seen := map[DefID]bool{}
	out := c[:0]
	for _, x := range c {
		if seen[x.Def] {
			continue
		}
		seen[x.Def] = true
		x.Uncertain = x.Confidence < r.threshold
		out = append(out, x)
	}
	return out
}
