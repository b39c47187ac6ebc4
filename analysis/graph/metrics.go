package graph

import (
	"cmp"
	"context"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
)

// Keep selects the files a metric reports on.
type Keep func(path string) bool

// PathFilter keeps the files under root matching glob (see Glob) and lying
// in folder, both over root-relative slash paths; "" leaves either out.
func PathFilter(root, glob, folder string) Keep {
	var re *regexp.Regexp
	if glob != "" {
		re = Glob(glob)
	}
	prefix := strings.Trim(filepath.ToSlash(folder), "/")
	return func(p string) bool {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			return false
		}
		rel = filepath.ToSlash(rel)
		if prefix != "" && rel != prefix && !strings.HasPrefix(rel, prefix+"/") {
			return false
		}
		return re == nil || re.MatchString(rel)
	}
}

// Glob compiles a glob where ** spans directories, * and ? do not; every
// other character is literal, so any glob compiles.
func Glob(glob string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for i := 0; i < len(glob); i++ {
		switch c := glob[i]; {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// top copies rows, orders them by compare and keeps the first limit.
func top[K comparable, T any](rows map[K]*T, compare func(a, b T) int, limit int) []T {
	out := make([]T, 0, len(rows))
	for _, r := range rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, compare)
	return out[:min(limit, len(out))]
}

func count(m map[string]int, kind string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[kind]++
	return m
}

// FanIn is how often a declaration is referenced.
type FanIn struct {
	Target      resolve.DefID
	FQName      string
	Occurrences int
	SourceFiles int
	ByEdgeKind  map[string]int
}

// FanIn ranks the declarations in kept files by the references they
// receive, most first, then by name and path.
func (g *Graph) FanIn(ctx context.Context, keep Keep, limit int) ([]FanIn, error) {
	rows := map[resolve.DefID]*FanIn{}
	files := map[resolve.DefID]map[string]bool{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return nil, err
		}
		if !keep(e.To.Path) {
			continue
		}
		row := rows[e.To]
		if row == nil {
			row = &FanIn{Target: e.To, FQName: g.FQName(e.To)}
			rows[e.To], files[e.To] = row, map[string]bool{}
		}
		row.Occurrences++
		row.ByEdgeKind = count(row.ByEdgeKind, e.Kind)
		files[e.To][e.From.Path] = true
		row.SourceFiles = len(files[e.To])
	}
	return top(rows, func(a, b FanIn) int {
		return cmp.Or(cmp.Compare(b.Occurrences, a.Occurrences), cmp.Compare(a.FQName, b.FQName), cmp.Compare(a.Target.Path, b.Target.Path))
	}, limit), nil
}

// FanOut is what one file references.
type FanOut struct {
	Path          string
	Occurrences   int
	TargetSymbols int
	TargetFiles   int
	ByEdgeKind    map[string]int
}

// FanOut ranks kept files by their outgoing references, most first. Every
// target is a workspace declaration: the graph holds no external ones.
func (g *Graph) FanOut(ctx context.Context, keep Keep, limit int) ([]FanOut, error) {
	rows := map[string]*FanOut{}
	targets := map[string]map[resolve.DefID]bool{}
	files := map[string]map[string]bool{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return nil, err
		}
		p := e.From.Path
		if !keep(p) {
			continue
		}
		row := rows[p]
		if row == nil {
			row = &FanOut{Path: p}
			rows[p], targets[p], files[p] = row, map[resolve.DefID]bool{}, map[string]bool{}
		}
		row.Occurrences++
		row.ByEdgeKind = count(row.ByEdgeKind, e.Kind)
		targets[p][e.To], files[p][e.To.Path] = true, true
		row.TargetSymbols, row.TargetFiles = len(targets[p]), len(files[p])
	}
	return top(rows, func(a, b FanOut) int {
		return cmp.Or(cmp.Compare(b.Occurrences, a.Occurrences), cmp.Compare(a.Path, b.Path))
	}, limit), nil
}

// Dead is a declaration nothing references.
type Dead struct {
	ID         resolve.DefID
	FQName     string
	Kind       string // Kast SymbolKind
	Visibility string
	// Level is HIGH for a private or local declaration, which nothing
	// outside its file can reach, MEDIUM otherwise.
	Level string
}

// DeadCode lists the declarations in kept files that nothing references
// other than themselves, in file order, at most limit (Kast's reader has
// no limit). Overloads stay distinct: edges point at declarations, not
// names.
func (g *Graph) DeadCode(ctx context.Context, keep Keep, limit int) ([]Dead, error) {
	used := map[resolve.DefID]bool{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return nil, err
		}
		if e.From != e.To {
			used[e.To] = true
		}
	}
	out := []Dead{}
	for _, id := range g.Decls {
		if err := c.step(); err != nil {
			return nil, err
		}
		if used[id] || !keep(id.Path) {
			continue
		}
		f, d, _ := g.Def(id)
		vis := naming.EffectiveVisibility(f, id.Index)
		level := "MEDIUM"
		if vis == "PRIVATE" || vis == "LOCAL" {
			level = "HIGH"
		}
		out = append(out, Dead{id, g.FQName(id), naming.Kind(d.Kind), vis, level})
		if len(out) == limit {
			break
		}
	}
	return out, nil
}

// Impact is a file affected by a change to a symbol.
type Impact struct {
	Path        string
	Depth       int    // edges from the symbol
	Via         string // the declaration whose reference reached the file
	EdgeKind    string
	Occurrences int // references at that depth
}

// Impact walks reverse edges from the declarations named symbol up to depth
// and reports each kept file once, at the depth it is first reached,
// ordered by depth then path.
func (g *Graph) Impact(ctx context.Context, symbol string, depth int, keep Keep, limit int) ([]Impact, error) {
	into := map[resolve.DefID][]Edge{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return nil, err
		}
		into[e.To] = append(into[e.To], e)
	}
	seen := map[resolve.DefID]bool{}
	frontier := g.Named(symbol)
	for _, id := range frontier {
		seen[id] = true
	}
	rows := map[string]*Impact{}
	for level := 1; level <= depth && len(frontier) > 0; level++ {
		var next []resolve.DefID
		for _, target := range frontier {
			for _, e := range into[target] {
				if err := c.step(); err != nil {
					return nil, err
				}
				if row := rows[e.From.Path]; row != nil {
					if row.Depth == level {
						row.Occurrences++
					}
				} else if keep(e.From.Path) {
					rows[e.From.Path] = &Impact{e.From.Path, level, g.FQName(target), e.Kind, 1}
				}
				if e.From.Index != analysis.None && !seen[e.From] {
					seen[e.From] = true
					next = append(next, e.From)
				}
			}
		}
		frontier = next
	}
	// One row per path, so depth then path is a total order.
	return top(rows, func(a, b Impact) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.Path, b.Path))
	}, limit), nil
}

// Coupling is how much one module references another.
type Coupling struct {
	SourceModule, SourceSourceSet string
	TargetModule, TargetSourceSet string
	References                    int
	// PublicAPI counts the references to declarations of the target's
	// public API (PUBLIC or PROTECTED), InternalLeaks those to INTERNAL
	// ones: module-internal declarations reached from another module.
	PublicAPI, InternalLeaks int
	ByEdgeKind               map[string]int
}

// Coupling counts the references between different modules (see
// naming.Module) and source sets, one row per ordered pair, most
// references first, then by module names. Only references from a kept
// file count.
func (g *Graph) Coupling(ctx context.Context, keep Keep, limit int) ([]Coupling, error) {
	type pair struct{ from, fromSet, to, toSet string }
	rows := map[pair]*Coupling{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return nil, err
		}
		from, to := naming.Module(g.Root, e.From.Path), naming.Module(g.Root, e.To.Path)
		if from == to || !keep(e.From.Path) {
			continue
		}
		fromSet, toSet := naming.SourceSet(e.From.Path), naming.SourceSet(e.To.Path)
		key := pair{from, fromSet, to, toSet}
		row := rows[key]
		if row == nil {
			row = &Coupling{SourceModule: from, SourceSourceSet: fromSet, TargetModule: to, TargetSourceSet: toSet}
			rows[key] = row
		}
		row.References++
		row.ByEdgeKind = count(row.ByEdgeKind, e.Kind)
		f, _, _ := g.Def(e.To)
		for _, facet := range naming.UsageFacets(naming.EffectiveVisibility(f, e.To.Index), e.To.Path) {
			switch facet {
			case "PUBLIC_API":
				row.PublicAPI++
			case "INTERNAL_API":
				row.InternalLeaks++
			}
		}
	}
	return top(rows, func(a, b Coupling) int {
		return cmp.Or(cmp.Compare(b.References, a.References), cmp.Compare(a.SourceModule, b.SourceModule),
			cmp.Compare(a.TargetModule, b.TargetModule), cmp.Compare(a.SourceSourceSet, b.SourceSourceSet),
			cmp.Compare(a.TargetSourceSet, b.TargetSourceSet))
	}, limit), nil
}

// Search ranks fully qualified names of declarations in kept files: with
// no query the most referenced, else exact matches (of the qualified or
// the simple name), then the shortest names containing the query, ignoring
// case.
func (g *Graph) Search(ctx context.Context, query string, keep Keep, limit int) ([]string, error) {
	out := []string{}
	if query == "" {
		rows, err := g.FanIn(ctx, keep, limit)
		for _, row := range rows {
			out = append(out, row.FQName)
		}
		return out, err
	}
	type hit struct {
		fq    string
		exact bool
	}
	var hits []hit
	seen := map[string]bool{}
	lower := strings.ToLower(query)
	c := canceller{ctx: ctx}
	for _, id := range g.Decls {
		if err := c.step(); err != nil {
			return nil, err
		}
		fq := g.FQName(id)
		_, d, _ := g.Def(id)
		if seen[fq] || !keep(id.Path) || !strings.Contains(strings.ToLower(fq), lower) {
			continue
		}
		seen[fq] = true
		hits = append(hits, hit{fq, fq == query || d.Name == query})
	}
	slices.SortFunc(hits, func(a, b hit) int {
		if a.exact != b.exact {
			if a.exact {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(len(a.fq), len(b.fq)), cmp.Compare(a.fq, b.fq))
	})
	for _, h := range hits[:min(limit, len(hits))] {
		out = append(out, h.fq)
	}
	return out, nil
}

// Node is a declaration of a neighbourhood.
type Node struct {
	ID     resolve.DefID
	FQName string
	Kind   string // Kast SymbolKind
	Depth  int
}

// Link is the references of one kind from one node to another.
type Link struct {
	From, To    string // fully qualified names
	Kind        string
	Occurrences int
}

// Neighbourhood is the declaration graph around a symbol.
type Neighbourhood struct {
	Nodes     []Node
	Links     []Link
	Truncated bool // limit nodes were reached
}

// Neighbourhood is the declaration graph within depth edges of the
// declarations named symbol, both directions, at most limit nodes in kept
// files. Top-level code has no declaration and is left out.
func (g *Graph) Neighbourhood(ctx context.Context, symbol string, depth int, keep Keep, limit int) (Neighbourhood, error) {
	adj := map[resolve.DefID][]Edge{}
	c := canceller{ctx: ctx}
	for _, e := range g.Edges {
		if err := c.step(); err != nil {
			return Neighbourhood{}, err
		}
		if e.From.Index != analysis.None && e.From != e.To {
			adj[e.From] = append(adj[e.From], e)
			adj[e.To] = append(adj[e.To], e)
		}
	}
	res := Neighbourhood{Nodes: []Node{}, Links: []Link{}}
	level := map[resolve.DefID]int{}
	add := func(id resolve.DefID, d int) bool {
		if _, ok := level[id]; ok || !keep(id.Path) {
			return false
		}
		if len(res.Nodes) == limit {
			res.Truncated = true
			return false
		}
		level[id] = d
		_, def, _ := g.Def(id)
		res.Nodes = append(res.Nodes, Node{id, g.FQName(id), naming.Kind(def.Kind), d})
		return true
	}
	frontier := []resolve.DefID{}
	for _, id := range g.Named(symbol) {
		if add(id, 0) {
			frontier = append(frontier, id)
		}
	}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []resolve.DefID
		for _, id := range frontier {
			for _, e := range adj[id] {
				if err := c.step(); err != nil {
					return Neighbourhood{}, err
				}
				for _, n := range []resolve.DefID{e.From, e.To} {
					if add(n, d) {
						next = append(next, n)
					}
				}
			}
		}
		frontier = next
	}
	type key struct {
		from, to resolve.DefID
		kind     string
	}
	counts := map[key]int{}
	for id := range level {
		for _, e := range adj[id] {
			_, okFrom := level[e.From]
			_, okTo := level[e.To]
			if okFrom && okTo && e.From == id {
				counts[key{e.From, e.To, e.Kind}]++
			}
		}
	}
	for _, k := range slices.Collect(maps.Keys(counts)) {
		res.Links = append(res.Links, Link{g.FQName(k.from), g.FQName(k.to), k.kind, counts[k]})
	}
	slices.SortFunc(res.Links, func(a, b Link) int {
		return cmp.Or(cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To), cmp.Compare(a.Kind, b.Kind))
	})
	return res, nil
}
