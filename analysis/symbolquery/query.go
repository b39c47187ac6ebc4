// Package symbolquery finds declarations by name for Kast's name-based
// methods: symbol/query ranks them by Kast's signals (exact, lexical,
// structural, graph) after hard filters; Candidates ranks the declarations
// a symbol/resolve or symbol/discover selector may mean.
package symbolquery

import (
	"cmp"
	"context"
	"errors"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Signal modes of a query.
const (
	ModeExact      = "exact"
	ModeLexical    = "lexical"
	ModeStructural = "structural"
	ModeGraph      = "graph"
	ModeSemantic   = "semantic"
)

// Modes lists every mode a query may ask for.
var Modes = []string{ModeExact, ModeLexical, ModeStructural, ModeGraph, ModeSemantic}

// Query is a symbol/query request, defaults applied.
type Query struct {
	Text    string
	Modes   []string
	Filters Filters
	Anchor  *Anchor
	Graph   graph.RelatedOptions
	Limit   int
	// Evidence keeps the matches and paths that explain each result.
	Evidence bool
}

// Anchor names the declarations graph evidence starts from: by position
// when FilePath and Offset are set, else by qualified, else simple name.
type Anchor struct {
	FilePath string
	Offset   *int
	FQName   string
	Symbol   string
}

// ErrAnchorNotFound is returned when the anchor names no declaration.
var ErrAnchorNotFound = errors.New("the anchor matches no declaration")

// ExactMatch and LexicalMatch are evidence: the index field that matched
// (in Kast's schema), how, and the value.
type ExactMatch struct{ Field, MatchType, Evidence string }

type LexicalMatch struct{ Field, Term, MatchType, Evidence string }

// Components are the parts of a result's score.
type Components struct{ Exact, Lexical, Structural, Graph float64 }

// Result is one ranked declaration.
type Result struct {
	ID         resolve.DefID
	Ordinal    int // among the graph's declarations, from 1: Kast's fqId
	FQName     string
	SimpleName string
	Kind       string // declaration kind of Kast's index
	Visibility string
	Facets     []string
	SourceSet  string
	Dir        string // the file's folder, root-relative
	DirOrdinal int    // among the result folders, from 1: Kast's prefixId
	Offset     int    // of the declaration's name

	Position   int
	Score      float64
	Components Components

	ExactMatched, LexicalMatched, StructuralMatched, GraphMatched bool
	ExactMatches                                                  []ExactMatch
	LexicalMatches                                                []LexicalMatch
	GraphPaths                                                    []graph.Path
}

// Answer is a query's hard filters and results, best first.
type Answer struct {
	HardFilters []HardFilter
	Results     []Result
}

// Run answers a query over g: sortScore = exact + 0.7·lexical +
// 0.2·structural + graph, after the hard filters; ties by name.
func Run(ctx context.Context, g *graph.Graph, q Query) (Answer, error) {
	keep, hard := q.Filters.compile(g.Root)
	mode := map[string]bool{}
	for _, m := range q.Modes {
		mode[m] = true
	}
	anchors, err := anchors(g, q.Anchor)
	if err != nil {
		return Answer{}, err
	}
	related, err := g.Related(ctx, anchors, q.Graph)
	if err != nil {
		return Answer{}, err
	}
	ans := Answer{HardFilters: hard, Results: []Result{}}
	terms := Words(q.Text)
	lowerQuery := strings.ToLower(strings.TrimSpace(q.Text))
	dirs := map[string]int{}
	for i, id := range g.Decls {
		if i%1024 == 0 {
			if err := ctx.Err(); err != nil {
				return Answer{}, err
			}
		}
		f, d, _ := g.Def(id)
		res := Result{ID: id, Ordinal: i + 1, FQName: g.FQName(id), SimpleName: d.Name, Kind: naming.IndexKind(d.Kind),
			Visibility: naming.EffectiveVisibility(f, id.Index), SourceSet: naming.SourceSet(id.Path), Offset: d.NameSpan.Start}
		res.Facets = naming.UsageFacets(res.Visibility, id.Path)
		if !keep(decl{id.Path, res.FQName, res.Kind, res.Visibility, naming.Qualifier(g.Root, f)}) {
			continue
		}
		var c Components
		if mode[ModeExact] && lowerQuery != "" {
			if res.FQName == q.Text {
				res.ExactMatches = append(res.ExactMatches, ExactMatch{"fq_names.fq_name", "EQUALS", res.FQName})
			} else if d.Name == q.Text {
				res.ExactMatches = append(res.ExactMatches, ExactMatch{"declarations.simple_name", "SIMPLE_NAME_EQUALS", d.Name})
			}
		}
		if mode[ModeLexical] && len(terms) > 0 {
			have := Words(res.FQName)
			hit := 0
			for _, t := range terms {
				if slices.Contains(have, t) {
					hit++
					res.LexicalMatches = append(res.LexicalMatches, LexicalMatch{"fq_names.fq_name", t, "TOKEN", res.FQName})
				}
			}
			if hit == 0 && strings.Contains(strings.ToLower(res.FQName), lowerQuery) {
				hit = len(terms)
				res.LexicalMatches = append(res.LexicalMatches, LexicalMatch{"fq_names.fq_name", lowerQuery, "LIKE", res.FQName})
			}
			c.Lexical = float64(hit) / float64(len(terms))
		}
		if mode[ModeGraph] {
			res.GraphPaths = related[id]
		}
		res.ExactMatched, res.LexicalMatched, res.GraphMatched = len(res.ExactMatches) > 0, len(res.LexicalMatches) > 0, len(res.GraphPaths) > 0
		// With no text, graph evidence alone selects.
		if !res.ExactMatched && !res.LexicalMatched && !(res.GraphMatched && lowerQuery == "") {
			continue
		}
		if res.ExactMatched {
			c.Exact = 1
		}
		if res.GraphMatched {
			c.Graph = 1
		}
		if mode[ModeStructural] {
			res.StructuralMatched, c.Structural = true, 1
		}
		if !q.Evidence {
			res.ExactMatches, res.LexicalMatches, res.GraphPaths = nil, nil, nil
		}
		dir := filepath.Dir(id.Path)
		if dirs[dir] == 0 {
			dirs[dir] = len(dirs) + 1
		}
		rel, _ := filepath.Rel(g.Root, dir)
		res.Dir, res.DirOrdinal = filepath.ToSlash(rel), dirs[dir]
		res.Score, res.Components = c.Exact+0.7*c.Lexical+0.2*c.Structural+c.Graph, c
		ans.Results = append(ans.Results, res)
	}
	slices.SortStableFunc(ans.Results, func(a, b Result) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(a.FQName, b.FQName))
	})
	ans.Results = ans.Results[:min(len(ans.Results), q.Limit)]
	for i := range ans.Results {
		ans.Results[i].Position = i + 1
	}
	return ans, nil
}

// anchors resolves the anchor to declarations: by position, else fqName,
// else simple name.
func anchors(g *graph.Graph, a *Anchor) ([]resolve.DefID, error) {
	if a == nil {
		return nil, nil
	}
	var out []resolve.DefID
	if a.FilePath != "" && a.Offset != nil {
		for _, c := range g.Resolver().DefinitionAt(a.FilePath, *a.Offset) {
			if !c.Uncertain {
				out = append(out, c.Def)
			}
		}
	}
	if name := cmp.Or(a.FQName, a.Symbol); len(out) == 0 && name != "" {
		out = g.Named(name)
	}
	if len(out) == 0 {
		return nil, ErrAnchorNotFound
	}
	return out, nil
}

// Words splits an identifier or query into lowercase words, camelCase
// included.
func Words(s string) []string {
	var out []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			out = append(out, strings.ToLower(string(cur)))
			cur = nil
		}
	}
	prev := rune(0)
	for _, c := range s {
		switch {
		case !(c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c > 127):
			flush()
		case 'A' <= c && c <= 'Z' && 'a' <= prev && prev <= 'z':
			flush()
			cur = append(cur, c)
		default:
			cur = append(cur, c)
		}
		prev = c
	}
	flush()
	return out
}

// decl is what the hard filters look at.
type decl struct {
	path, fq, kind, visibility, pkg string
}

// Filters are a query's hard filters; zero fields filter nothing.
type Filters struct {
	Kinds, Visibility, UsageFacets, ExcludePatterns []string
	FQNamePrefix, PackagePrefix, RelativePathPrefix *string
	FileGlob, ModulePath, GradleProject, SourceSet  *string
	ProductionOnly                                  bool
}

// HardFilter describes an applied filter: the request field, its value and
// the index column Kast filters on.
type HardFilter struct {
	Field  string
	Value  any
	Source string
}

// compile turns the filters into a predicate and lists them by field.
func (f *Filters) compile(root string) (func(decl) bool, []HardFilter) {
	hard := []HardFilter{}
	var preds []func(decl) bool
	add := func(field string, value any, source string, p func(decl) bool) {
		hard = append(hard, HardFilter{field, value, source})
		preds = append(preds, p)
	}
	rel := func(path string) string { r, _ := filepath.Rel(root, path); return filepath.ToSlash(r) }
	if len(f.Kinds) > 0 {
		add("kinds", f.Kinds, "declarations.kind", func(d decl) bool { return slices.Contains(f.Kinds, d.kind) })
	}
	if len(f.Visibility) > 0 {
		add("visibility", f.Visibility, "declarations.visibility", func(d decl) bool { return slices.Contains(f.Visibility, d.visibility) })
	}
	if p := f.FQNamePrefix; p != nil {
		add("fqNamePrefix", *p, "fq_names.fq_name", func(d decl) bool { return strings.HasPrefix(d.fq, *p) })
	}
	if p := f.PackagePrefix; p != nil {
		add("packagePrefix", *p, "file_metadata.package_fq_id", func(d decl) bool { return strings.HasPrefix(d.pkg, *p) })
	}
	if p := f.RelativePathPrefix; p != nil {
		add("relativePathPrefix", *p, "path_prefixes.dir_path", func(d decl) bool { return strings.HasPrefix(rel(d.path), *p) })
	}
	if g := f.FileGlob; g != nil {
		re := graph.Glob(*g)
		add("fileGlob", *g, "path_prefixes.dir_path + filename", func(d decl) bool { return re.MatchString(rel(d.path)) })
	}
	if len(f.ExcludePatterns) > 0 {
		var res []*regexp.Regexp
		for _, p := range f.ExcludePatterns {
			res = append(res, graph.Glob(p))
		}
		add("excludePatterns", f.ExcludePatterns, "path_prefixes.dir_path + filename", func(d decl) bool {
			return !slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(rel(d.path)) })
		})
	}
	mod := naming.RootModule(root)
	for field, v := range map[string]*string{"modulePath": f.ModulePath, "gradleProject": f.GradleProject} {
		if v != nil {
			add(field, *v, "declarations.module_path", func(decl) bool { return *v == mod || *v == ":"+mod })
		}
	}
	if s := f.SourceSet; s != nil {
		add("sourceSet", *s, "declarations.source_set", func(d decl) bool { ss := naming.SourceSet(d.path); return ss != "" && ss == *s })
	}
	if f.ProductionOnly {
		add("productionOnly", true, "declarations.source_set", func(d decl) bool {
			return !strings.Contains(strings.ToLower(naming.SourceSet(d.path)), "test") && !strings.HasSuffix(d.path, "_test.go")
		})
	}
	if len(f.UsageFacets) > 0 {
		add("usageFacets", f.UsageFacets, "declarations + symbol_references + file_metadata + declaration_supertypes", func(d decl) bool {
			return slices.ContainsFunc(naming.UsageFacets(d.visibility, d.path), func(u string) bool { return slices.Contains(f.UsageFacets, u) })
		})
	}
	slices.SortStableFunc(hard, func(a, b HardFilter) int { return cmp.Compare(a.Field, b.Field) })
	return func(d decl) bool {
		for _, p := range preds {
			if !p(d) {
				return false
			}
		}
		return true
	}, hard
}
