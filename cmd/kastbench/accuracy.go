package main

// Accuracy against a compiler: -accuracy kotlin scores kast's resolution
// engine on real projects against the reference→declaration pairs that the
// Kotlin compiler's front end prints (../shared/tools/kotlin-oracle):
//
//	run-oracle.sh $(find SOURCE_SETS -name '*.kt') > P.oracle   (paths relative to P.oracle's folder)
//	kastbench -accuracy kotlin -root P1,P2 -oracle P1.oracle,P2.oracle [-samples 1000] [-refsamples 200]
//
// The engine indexes every supported file under the root (as kast does);
// only references in the files the oracle analysed are scored, and only
// those the compiler binds to a declaration with source. References are
// sampled in equal parts from three buckets of how common the name is (how
// many declarations of the project carry it), as the reference tools do.

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/resolve"
)

// oracleRef is one line of the oracle: a name at a place bound to a target.
type oracleRef struct {
	file   string // absolute
	offset int    // byte offset of the name
	name   string
	target string // fully qualified; ends in .<init> for constructors
	decl   place  // zero when the target has no source
}

type place struct {
	file   string
	offset int
}

// project is one scored project: the engine over its files and the
// compiler's answers.
type project struct {
	name   string
	r      *resolve.Resolver
	ws     *resolve.Memory
	refs   []oracleRef // with source targets, in analysed files
	byPos  map[place]oracleRef
	lines  map[string][]int // line start offsets per file
	srcs   map[string][]byte
	bucket map[string]string // name → frequency bucket
	bound  map[place]bool    // every name the compiler bound, library targets too
}

func runAccuracy(language, roots, oracles string, samples, refSamples int) error {
	if language != "kotlin" {
		return fmt.Errorf("-accuracy: only kotlin has an oracle, not %q", language)
	}
	rs, outs := strings.Split(roots, ","), strings.Split(oracles, ",")
	if len(rs) != len(outs) {
		return fmt.Errorf("-accuracy: %d roots but %d oracle files", len(rs), len(outs))
	}
	fmt.Printf("%-12s %-8s %6s %7s %9s %9s %8s %7s %7s %7s %9s\n", "project", "bucket", "refs", "hit@1", "coverage", "precision", "wrong", "refsP", "refsR", "refsF1", "badEdits")
	for i := range rs {
		p, err := loadProject(rs[i], outs[i])
		if err != nil {
			return err
		}
		p.report(samples, refSamples)
	}
	return nil
}

func loadProject(root, oracleFile string) (*project, error) {
	root, _ = filepath.Abs(root)
	paths, _, err := treeFiles(root)
	if err != nil {
		return nil, err
	}
	p := &project{name: filepath.Base(root), lines: map[string][]int{}, srcs: map[string][]byte{}, byPos: map[place]oracleRef{}, bucket: map[string]string{},
		bound: map[place]bool{}}
	var facts []*analysis.FileFacts
	for _, path := range paths {
		src, err := os.ReadFile(path)
		if err != nil {
			continue
		}
		f, err := lang.Extract(context.Background(), path, src)
		if err != nil {
			continue
		}
		p.srcs[path] = src
		facts = append(facts, f)
	}
	p.ws = resolve.NewMemory(facts...)
	p.r = resolve.New(p.ws)
	if err := p.readOracle(oracleFile); err != nil {
		return nil, err
	}
	return p, nil
}

// readOracle parses `file:line:col name -> target @ declFile:line:col`.
func (p *project) readOracle(name string) error {
	f, err := os.Open(name)
	if err != nil {
		return err
	}
	defer f.Close()
	base := filepath.Dir(name)
	decls := map[string]map[place]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		// `this` and `super` are keywords, not names a reference is kept for.
		if len(fields) != 6 || fields[2] != "->" || fields[4] != "@" || !isIdent(fields[1]) ||
			fields[1] == "this" || fields[1] == "super" {
			continue
		}
		at, ok := p.place(base, fields[0])
		if !ok {
			continue
		}
		p.bound[at] = true
		ref := oracleRef{file: at.file, offset: at.offset, name: fields[1], target: fields[3]}
		if d, ok := p.place(base, fields[5]); ok {
			ref.decl = d
		}
		if ref.decl.file == "" {
			continue
		}
		p.refs = append(p.refs, ref)
		p.byPos[at] = ref
		if decls[ref.name] == nil {
			decls[ref.name] = map[place]bool{}
		}
		decls[ref.name][ref.decl] = true
	}
	for n, ds := range decls {
		switch {
		case len(ds) == 1:
			p.bucket[n] = "unique"
		case len(ds) <= 4:
			p.bucket[n] = "few"
		default:
			p.bucket[n] = "common"
		}
	}
	return sc.Err()
}

// place turns "path:line:col" (1-based, col in UTF-16 units) into a byte offset.
func (p *project) place(base, s string) (place, bool) {
	i := strings.LastIndexByte(s, ':')
	j := strings.LastIndexByte(s[:max(i, 0)], ':')
	if i < 0 || j < 0 {
		return place{}, false
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	path := s[:j]
	if err1 != nil || err2 != nil {
		return place{}, false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(base, path)
	}
	src, ok := p.srcs[path]
	if !ok {
		return place{}, false
	}
	starts, ok := p.lines[path]
	if !ok {
		starts = []int{0}
		for k, c := range src {
			if c == '\n' {
				starts = append(starts, k+1)
			}
		}
		p.lines[path] = starts
	}
	if line < 1 || line > len(starts) {
		return place{}, false
	}
	off := starts[line-1]
	for units := col - 1; units > 0 && off < len(src); {
		r, size := utf8.DecodeRune(src[off:])
		units -= len(utf16.Encode([]rune{r}))
		off += size
	}
	return place{path, off}, true
}

func isIdent(s string) bool {
	s = strings.Trim(s, "`")
	for i, r := range s {
		if !(unicode.IsLetter(r) || r == '_' || i > 0 && unicode.IsDigit(r)) {
			return false
		}
	}
	return s != ""
}

// kastDef is the engine's definition for a compiler declaration: the one
// named there, or for a constructor the class it builds.
func (p *project) kastDef(ref oracleRef) (resolve.DefID, bool) {
	f := p.ws.File(ref.decl.file)
	if f == nil {
		return resolve.DefID{}, false
	}
	init := strings.HasSuffix(ref.target, ".<init>")
	best := analysis.None
	for i, d := range f.Defs {
		if d.NameSpan.Start == ref.decl.offset && d.Kind != analysis.KindConstructor {
			return resolve.DefID{Path: ref.decl.file, Index: int32(i)}, true
		}
		if init && d.Kind.IsType() && d.FullSpan.Start <= ref.decl.offset && ref.decl.offset < d.FullSpan.End &&
			(best == analysis.None || d.FullSpan.Start >= f.Defs[best].FullSpan.Start) {
			best = int32(i)
		}
	}
	return resolve.DefID{Path: ref.decl.file, Index: best}, best != analysis.None
}

// matches reports whether the engine's answer c is the compiler's target:
// the same declaration, or for a constructor call the constructor or its class.
func (p *project) matches(c resolve.Candidate, ref oracleRef) bool {
	if c.Def.Path != ref.decl.file {
		return false
	}
	if c.NameSpan.Start == ref.decl.offset {
		return true
	}
	want, ok := p.kastDef(ref)
	if ok && want == c.Def {
		return true
	}
	// A primary constructor: the compiler places it at its parameter list,
	// kast names it at the class header and spans it from that list.
	if strings.HasSuffix(ref.target, ".<init>") {
		if d := p.ws.File(c.Def.Path).Defs[c.Def.Index]; d.Kind == analysis.KindConstructor && d.FullSpan.Start == ref.decl.offset {
			return true
		}
	}
	// `Segment.SIZE`: the compiler binds the class name to the companion
	// object whose member follows; an editor goes to the class, which holds it.
	if strings.HasSuffix(ref.target, ".Companion") {
		d := p.ws.File(c.Def.Path).Defs[c.Def.Index]
		return d.Kind.IsType() && d.Name == ref.name && d.FullSpan.Start <= ref.decl.offset && ref.decl.offset < d.FullSpan.End
	}
	return false
}

type tally struct{ total, answered, hits int }

func (t tally) pct(n int) string {
	if t.total == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(max(1, t.total)))
}

func (p *project) report(samples, refSamples int) {
	rng := rand.New(rand.NewPCG(1, 2))
	byBucket := map[string][]oracleRef{}
	for _, r := range p.refs {
		b := p.bucket[r.name]
		byBucket[b] = append(byBucket[b], r)
	}
	buckets := []string{"unique", "few", "common"}
	var all tally
	rows := map[string]tally{}
	for _, b := range buckets {
		refs := byBucket[b]
		rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
		refs = refs[:min(len(refs), samples/len(buckets))]
		var t tally
		for _, ref := range refs {
			t.total++
			cands := p.r.DefinitionAt(ref.file, ref.offset)
			if len(cands) == 0 || cands[0].Uncertain {
				if accuracyVerbose {
					p.explain("none", ref, resolve.Candidate{})
				}
				continue
			}
			t.answered++
			if p.matches(cands[0], ref) {
				t.hits++
			} else if accuracyVerbose {
				p.explain("wrong", ref, cands[0])
			}
		}
		rows[b] = t
		all.total, all.answered, all.hits = all.total+t.total, all.answered+t.answered, all.hits+t.hits
	}
	for _, b := range buckets {
		t := rows[b]
		fmt.Printf("%-12s %-8s %6d %7s %9s %9s %8d\n", p.name, b, t.total, t.pct(t.hits), t.pct(t.answered),
			tally{total: t.answered}.pct(t.hits), t.answered-t.hits)
	}
	prec, rec, f1 := p.referencesF1(rng, refSamples)
	bad, sets := p.crossOverloadEdits()
	fmt.Printf("%-12s %-8s %6d %7s %9s %9s %8d %7.3f %7.3f %7.3f %5d/%-3d\n", p.name, "all", all.total, all.pct(all.hits),
		all.pct(all.answered), tally{total: all.answered}.pct(all.hits), all.answered-all.hits, prec, rec, f1, bad, sets)
}

// referencesF1 compares the engine's confident references of sampled
// declarations with the compiler's, in the files the compiler analysed, at
// the names it bound (to a source or a library declaration).
func (p *project) referencesF1(rng *rand.Rand, n int) (prec, rec, f1 float64) {
	want := map[resolve.DefID]map[place]bool{}
	analysed := map[string]bool{}
	for _, r := range p.refs {
		analysed[r.file] = true
		if d, ok := p.scoringDef(r); ok {
			if want[d] == nil {
				want[d] = map[place]bool{}
			}
			want[d][place{r.file, r.offset}] = true
		}
	}
	defs := make([]resolve.DefID, 0, len(want))
	for d := range want {
		defs = append(defs, d)
	}
	slices.SortFunc(defs, func(a, b resolve.DefID) int {
		return cmp.Or(cmp.Compare(a.Path, b.Path), cmp.Compare(a.Index, b.Index))
	})
	rng.Shuffle(len(defs), func(i, j int) { defs[i], defs[j] = defs[j], defs[i] })
	var tp, fp, fn int
	for _, d := range defs[:min(n, len(defs))] {
		got := map[place]bool{}
		for _, r := range p.r.References(d) {
			// A reference flagged ambiguous is listed as such, not as a use.
			if !r.Uncertain && !r.Ambiguous && analysed[r.Ref.Path] {
				got[place{r.Ref.Path, r.Span.Start}] = true
			}
		}
		for pl := range got {
			if !p.bound[pl] {
				// The compiler bound nothing there (a dependency missing
				// from its classpath): neither right nor wrong.
				continue
			}
			if want[d][pl] {
				tp++
			} else {
				fp++
				if o, ok := p.byPos[pl]; ok && accuracyVerbose {
					p.explain("extraref", o, resolve.Candidate{Def: d})
				}
			}
		}
		for pl := range want[d] {
			if !got[pl] {
				fn++
				if accuracyVerbose {
					p.explain("missedref", p.byPos[pl], resolve.Candidate{Def: d})
				}
			}
		}
	}
	prec = float64(tp) / float64(max(1, tp+fp))
	rec = float64(tp) / float64(max(1, tp+fn))
	if prec+rec > 0 {
		f1 = 2 * prec * rec / (prec + rec)
	}
	return prec, rec, f1
}

// crossOverloadEdits counts, over every overload set of the project (one
// qualified name, several declarations), the references a rename of one
// overload would edit that the compiler binds to another overload.
func (p *project) crossOverloadEdits() (bad, sets int) {
	overloads := map[string]map[place]bool{}
	for _, r := range p.refs {
		if overloads[r.target] == nil {
			overloads[r.target] = map[place]bool{}
		}
		overloads[r.target][r.decl] = true
	}
	for target, decls := range overloads {
		// An expect declaration and its actuals share a name too, but are
		// renamed together: they are no overload set.
		shapes := map[string]bool{}
		for decl := range decls {
			if d, ok := p.kastDef(oracleRef{target: target, decl: decl}); ok {
				shapes[resolve.OverloadShape(p.def(d))] = true
			}
		}
		if len(shapes) < 2 {
			continue
		}
		sets++
		for decl := range decls {
			d, ok := p.kastDef(oracleRef{target: target, decl: decl})
			if !ok {
				continue
			}
			for _, r := range p.r.References(d) {
				if r.Uncertain || r.Ambiguous {
					continue
				}
				o, ok := p.byPos[place{r.Ref.Path, r.Span.Start}]
				if !ok || o.target != target || o.decl == decl {
					continue
				}
				// The compiler's declaration may be an actual of the same
				// overload: one identity, renamed together.
				if od, ok := p.kastDef(o); ok && resolve.OverloadShape(p.def(od)) == resolve.OverloadShape(p.def(d)) {
					continue
				}
				bad++
				if accuracyVerbose {
					p.explain("badedit", o, resolve.Candidate{Def: d})
				}
			}
		}
	}
	return bad, sets
}

// accuracyVerbose prints every miss to stderr (KASTBENCH_VERBOSE=1).
var accuracyVerbose = os.Getenv("KASTBENCH_VERBOSE") != ""

// explain prints a miss: where, the line, the compiler's target and kast's.
func (p *project) explain(what string, ref oracleRef, c resolve.Candidate) {
	src := p.srcs[ref.file]
	start := strings.LastIndexByte(string(src[:ref.offset]), '\n') + 1
	end := start + strings.IndexByte(string(src[start:]), '\n')
	if end < start {
		end = len(src)
	}
	got := "-"
	if c.Def.Path != "" {
		d := p.ws.File(c.Def.Path).Defs[c.Def.Index]
		got = fmt.Sprintf("%s %s@%s:%d", d.Kind, d.Name, filepath.Base(c.Def.Path), d.NameSpan.StartPoint.Line+1)
	}
	decl := p.srcs[ref.decl.file]
	line := strings.Count(string(decl[:ref.decl.offset]), "\n") + 1
	fmt.Fprintf(os.Stderr, "%s\t%s:%d\t%s\twant %s@%s:%d\tgot %s\t%s\n", what, filepath.Base(ref.file),
		strings.Count(string(src[:ref.offset]), "\n")+1, ref.name, ref.target, filepath.Base(ref.decl.file), line, got,
		strings.TrimSpace(string(src[start:end])))
}

func (p *project) def(id resolve.DefID) analysis.Def { return p.ws.File(id.Path).Defs[id.Index] }

// scoringDef is the definition whose references a compiler reference
// counts for: kastDef, but for `Segment.SIZE`, whose Segment the compiler
// binds to the companion object, the class named.
func (p *project) scoringDef(ref oracleRef) (resolve.DefID, bool) {
	d, ok := p.kastDef(ref)
	if !ok || !strings.HasSuffix(ref.target, ".Companion") || ref.name == "Companion" {
		return d, ok
	}
	f := p.ws.File(ref.decl.file)
	for c := f.Defs[d.Index].Container; c != analysis.None; c = f.Defs[c].Container {
		if f.Defs[c].Name == ref.name && f.Defs[c].Kind.IsType() {
			return resolve.DefID{Path: ref.decl.file, Index: c}, true
		}
	}
	return d, ok
}
