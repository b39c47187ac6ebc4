package kast

import (
	"cmp"
	"context"
	"fmt"
	"iter"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// database/metrics and symbol/query read Kast's SQLite source index; kast
// answers them from its own index: the certain reference edges the
// resolver finds, which is what Kast's symbol_references table holds.

// edge is one resolved reference: from the declaration enclosing it (Index
// None at top level) to its target.
type edge struct {
	src    resolve.DefID
	offset int
	target resolve.DefID
	kind   string
}

// graph is the workspace's reference edges and named declarations.
type graph struct {
	r     *kastRequest
	edges []edge
	decls []resolve.DefID // outline declarations, in file order
	files int             // files with facts
}

func (r *kastRequest) graph() *graph {
	g := &graph{r: r}
	res := r.snap.Resolver()
	for _, path := range r.snap.Files() {
		f := r.snap.File(path)
		if f == nil {
			continue
		}
		g.files++
		for _, it := range f.Outline() {
			g.decls = append(g.decls, resolve.DefID{Path: path, Index: it.Def})
		}
	}
	// Edges end at named declarations, as in Kast's index: uses of
	// parameters and locals are not part of the graph.
	named := map[resolve.DefID]bool{}
	for _, id := range g.decls {
		named[id] = true
	}
	for _, path := range r.snap.Files() {
		f := r.snap.File(path)
		if f == nil {
			continue
		}
		for i, ref := range f.Refs {
			for _, c := range res.Resolve(resolve.RefID{Path: path, Index: int32(i)}) {
				if !c.Uncertain && named[c.Def] {
					g.edges = append(g.edges, edge{resolve.DefID{Path: path, Index: ref.Enclosing}, ref.Span.Start, c.Def, edgeKind(ref.Role)})
				}
				break
			}
		}
	}
	return g
}

// edgeKind classifies a reference as Kast's scanner does: import >
// supertype entry > type reference > call.
func edgeKind(role analysis.Role) string {
	switch {
	case role&analysis.RoleImport != 0:
		return "IMPORT"
	case role&analysis.RoleInheritance != 0:
		return "INHERITANCE"
	case role&analysis.RoleType != 0:
		return "TYPE_REF"
	case role&analysis.RoleCall != 0:
		return "CALL"
	}
	return "UNKNOWN"
}

func (g *graph) fq(id resolve.DefID) string {
	f := g.r.snap.File(id.Path)
	if f == nil || id.Index == analysis.None || int(id.Index) >= len(f.Defs) {
		return ""
	}
	return g.r.fqName(f, id.Index)
}

// named lists the declarations whose simple or qualified name is name.
func (g *graph) named(name string) []resolve.DefID {
	var out []resolve.DefID
	for _, id := range g.decls {
		if f := g.r.snap.File(id.Path); f.Defs[id.Index].Name == name || g.fq(id) == name {
			out = append(out, id)
		}
	}
	return out
}

// confidence is Kast's per-row confidence. Resolution here is syntactic
// (scopes and imports, no compiler), which Kast calls LEXICAL.
type confidence struct {
	Level             string  `json:"level"`
	IndexCompleteness float64 `json:"indexCompleteness"`
	SemanticBasis     string  `json:"semanticBasis"`
}

func (g *graph) confidence(level string) confidence {
	total := len(g.r.snap.Files())
	completeness := 1.0
	if total > 0 {
		completeness = float64(g.files) / float64(total)
	}
	return confidence{level, completeness, "LEXICAL"}
}

type metricsQuery struct {
	WorkspaceRoot *string `json:"workspaceRoot,omitempty"`
	Metric        *string `json:"metric"`
	Limit         *int    `json:"limit"`
	Symbol        *string `json:"symbol,omitempty"`
	Depth         *int    `json:"depth"`
	FileGlob      *string `json:"fileGlob,omitempty"`
	FolderFilter  *string `json:"folderFilter,omitempty"`
}

var kastMetrics = []string{"fanIn", "fanOut", "deadCode", "impact", "coupling", "search", "graph"}

func (q *metricsQuery) check() error {
	if q.Metric == nil {
		return validation("Missing required field: metric", nil)
	}
	if q.Limit == nil {
		q.Limit = ptr(50)
	}
	if q.Depth == nil {
		q.Depth = ptr(3)
	}
	return nil
}

type metricsSuccess struct {
	Type          string        `json:"type"`
	OK            bool          `json:"ok"`
	Query         *metricsQuery `json:"query"`
	Results       any           `json:"results"`
	LogFile       string        `json:"logFile"`
	SchemaVersion int           `json:"schemaVersion"`
}

type metricsFailure struct {
	Type          string        `json:"type"`
	OK            bool          `json:"ok"`
	Stage         string        `json:"stage"`
	Message       string        `json:"message"`
	Query         *metricsQuery `json:"query,omitempty"`
	LogFile       string        `json:"logFile"`
	SchemaVersion int           `json:"schemaVersion"`
}

// metrics answers database/metrics; bad arguments are METRICS_FAILURE
// results at stage "validate", as Kast's reader reports them.
func (k *Service) metrics(ctx context.Context, q *metricsQuery) (any, error) {
	fail := func(msg string) (any, error) {
		return metricsFailure{"METRICS_FAILURE", false, "validate", msg, q, "", kastSchemaVersion}, nil
	}
	if !slices.Contains(kastMetrics, *q.Metric) {
		return fail("Unknown metric " + *q.Metric + "; use one of " + strings.Join(kastMetrics, ", "))
	}
	if *q.Limit < 1 || *q.Depth < 0 {
		return fail("limit must be at least 1 and depth not negative")
	}
	if (*q.Metric == "impact" || *q.Metric == "graph") && q.Symbol == nil {
		return fail(*q.Metric + " needs a symbol")
	}
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	keep := pathFilter(r.root, q.FileGlob, q.FolderFilter)
	g := r.graph()
	var results any
	switch *q.Metric {
	case "fanIn":
		results = g.fanIn(keep, *q.Limit)
	case "fanOut":
		results = g.fanOut(keep, *q.Limit)
	case "deadCode":
		results = g.deadCode(keep, *q.Limit)
	case "impact":
		results = g.impact(*q.Symbol, *q.Depth, keep, *q.Limit)
	case "coupling":
		results = g.coupling()
	case "search":
		results = g.search(valueOr(q.Symbol, ""), keep, *q.Limit)
	case "graph":
		results = g.neighbourhood(*q.Symbol, *q.Depth, keep, *q.Limit)
	}
	return metricsSuccess{"METRICS_SUCCESS", true, q, results, "", kastSchemaVersion}, nil
}

// pathFilter is fileGlob and folderFilter, both over root-relative slash
// paths.
func pathFilter(root string, glob, folder *string) func(string) bool {
	var re *regexp.Regexp
	if glob != nil && *glob != "" {
		re = globRegexp(*glob)
	}
	prefix := strings.Trim(filepath.ToSlash(valueOr(folder, "")), "/")
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

// globRegexp compiles a glob where ** spans directories; every other
// character is literal, so any glob compiles.
func globRegexp(glob string) *regexp.Regexp {
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

func (g *graph) module() string { return moduleName(g.r.root) }

// sourceSet is the Gradle-style source set a path is in ("main" for
// src/main/...), or nil.
func sourceSet(path string) *string {
	parts := strings.Split(filepath.ToSlash(path), "/")
	for i := 0; i+1 < len(parts)-1; i++ {
		if parts[i] == "src" {
			return &parts[i+1]
		}
	}
	return nil
}

// topRows copies rows, orders them by compare and keeps the first limit.
func topRows[T any](rows iter.Seq[*T], compare func(a, b T) int, limit int) []T {
	out := []T{}
	for r := range rows {
		out = append(out, *r)
	}
	slices.SortFunc(out, compare)
	return out[:min(limit, len(out))]
}

func countKinds(m map[string]int, kind string) map[string]int {
	if m == nil {
		m = map[string]int{}
	}
	m[kind]++
	return m
}

type fanInRow struct {
	TargetFqName      string         `json:"targetFqName"`
	TargetPath        *string        `json:"targetPath,omitempty"`
	TargetModulePath  *string        `json:"targetModulePath,omitempty"`
	TargetSourceSet   *string        `json:"targetSourceSet,omitempty"`
	OccurrenceCount   int            `json:"occurrenceCount"`
	SourceFileCount   int            `json:"sourceFileCount"`
	SourceModuleCount int            `json:"sourceModuleCount"`
	ByEdgeKind        map[string]int `json:"byEdgeKind"`
	Confidence        confidence     `json:"confidence"`
}

func (g *graph) fanIn(keep func(string) bool, limit int) []fanInRow {
	rows := map[resolve.DefID]*fanInRow{}
	files := map[resolve.DefID]map[string]bool{}
	mod := g.module()
	for _, e := range g.edges {
		if !keep(e.target.Path) {
			continue
		}
		row := rows[e.target]
		if row == nil {
			path := e.target.Path
			row = &fanInRow{TargetFqName: g.fq(e.target), TargetPath: &path, TargetModulePath: &mod, TargetSourceSet: sourceSet(path),
				SourceModuleCount: 1, Confidence: g.confidence("LOW")}
			rows[e.target], files[e.target] = row, map[string]bool{}
		}
		row.OccurrenceCount++
		row.ByEdgeKind = countKinds(row.ByEdgeKind, e.kind)
		files[e.target][e.src.Path] = true
		row.SourceFileCount = len(files[e.target])
	}
	return topRows(maps.Values(rows), func(a, b fanInRow) int {
		return cmp.Or(cmp.Compare(b.OccurrenceCount, a.OccurrenceCount), cmp.Compare(a.TargetFqName, b.TargetFqName), cmp.Compare(*a.TargetPath, *b.TargetPath))
	}, limit)
}

type fanOutRow struct {
	SourcePath          string         `json:"sourcePath"`
	SourceModulePath    *string        `json:"sourceModulePath,omitempty"`
	SourceSourceSet     *string        `json:"sourceSourceSet,omitempty"`
	OccurrenceCount     int            `json:"occurrenceCount"`
	TargetSymbolCount   int            `json:"targetSymbolCount"`
	TargetFileCount     int            `json:"targetFileCount"`
	TargetModuleCount   int            `json:"targetModuleCount"`
	ExternalTargetCount int            `json:"externalTargetCount"`
	ByEdgeKind          map[string]int `json:"byEdgeKind"`
	Confidence          confidence     `json:"confidence"`
}

// fanOut counts each file's outgoing edges. The index holds workspace
// targets only, so externalTargetCount is 0.
func (g *graph) fanOut(keep func(string) bool, limit int) []fanOutRow {
	rows := map[string]*fanOutRow{}
	targets := map[string]map[resolve.DefID]bool{}
	files := map[string]map[string]bool{}
	mod := g.module()
	for _, e := range g.edges {
		p := e.src.Path
		if !keep(p) {
			continue
		}
		row := rows[p]
		if row == nil {
			row = &fanOutRow{SourcePath: p, SourceModulePath: &mod, SourceSourceSet: sourceSet(p), TargetModuleCount: 1, Confidence: g.confidence("LOW")}
			rows[p], targets[p], files[p] = row, map[resolve.DefID]bool{}, map[string]bool{}
		}
		row.OccurrenceCount++
		row.ByEdgeKind = countKinds(row.ByEdgeKind, e.kind)
		targets[p][e.target], files[p][e.target.Path] = true, true
		row.TargetSymbolCount, row.TargetFileCount = len(targets[p]), len(files[p])
	}
	return topRows(maps.Values(rows), func(a, b fanOutRow) int {
		return cmp.Or(cmp.Compare(b.OccurrenceCount, a.OccurrenceCount), cmp.Compare(a.SourcePath, b.SourcePath))
	}, limit)
}

type deadCodeRow struct {
	FqName     string     `json:"fqName"`
	Kind       string     `json:"kind"`
	Visibility string     `json:"visibility"`
	Path       string     `json:"path"`
	ModulePath string     `json:"modulePath"`
	SourceSet  *string    `json:"sourceSet,omitempty"`
	Confidence confidence `json:"confidence"`
	Reason     string     `json:"reason"`
}

// deadCode lists declarations nothing references (other than themselves),
// with limit applied, unlike Kast's reader. Overloads stay distinct: edges
// point at declarations, not names.
func (g *graph) deadCode(keep func(string) bool, limit int) []deadCodeRow {
	used := map[resolve.DefID]bool{}
	for _, e := range g.edges {
		if e.src != e.target {
			used[e.target] = true
		}
	}
	out := []deadCodeRow{}
	for _, id := range g.decls {
		if used[id] || !keep(id.Path) {
			continue
		}
		f := g.r.snap.File(id.Path)
		vis := cmp.Or(visibility(f, id.Index), "PUBLIC")
		level := "MEDIUM"
		if vis == "PRIVATE" || vis == "LOCAL" {
			level = "HIGH"
		}
		out = append(out, deadCodeRow{g.fq(id), kastKind(f.Defs[id.Index].Kind), vis, id.Path, g.module(), sourceSet(id.Path),
			g.confidence(level), "No references to this declaration in the workspace index"})
		if len(out) == limit {
			break
		}
	}
	return out
}

type impactRow struct {
	SourcePath      string     `json:"sourcePath"`
	Depth           int        `json:"depth"`
	ViaTargetFqName string     `json:"viaTargetFqName"`
	EdgeKind        *string    `json:"edgeKind,omitempty"`
	OccurrenceCount int        `json:"occurrenceCount"`
	Confidence      confidence `json:"confidence"`
}

// impact walks reverse edges from the symbol's declarations up to depth and
// reports each affected file once, at the depth it is first reached.
func (g *graph) impact(symbol string, depth int, keep func(string) bool, limit int) []impactRow {
	into := map[resolve.DefID][]edge{}
	for _, e := range g.edges {
		into[e.target] = append(into[e.target], e)
	}
	seen := map[resolve.DefID]bool{}
	frontier := g.named(symbol)
	for _, id := range frontier {
		seen[id] = true
	}
	rows := map[string]*impactRow{}
	for level := 1; level <= depth && len(frontier) > 0; level++ {
		var next []resolve.DefID
		for _, target := range frontier {
			for _, e := range into[target] {
				if row := rows[e.src.Path]; row != nil {
					if row.Depth == level {
						row.OccurrenceCount++
					}
				} else if keep(e.src.Path) {
					kind := e.kind
					rows[e.src.Path] = &impactRow{e.src.Path, level, g.fq(target), &kind, 1, g.confidence("LOW")}
				}
				if e.src.Index != analysis.None && !seen[e.src] {
					seen[e.src] = true
					next = append(next, e.src)
				}
			}
		}
		frontier = next
	}
	// One row per source path, so depth then path is a total order.
	return topRows(maps.Values(rows), func(a, b impactRow) int {
		return cmp.Or(cmp.Compare(a.Depth, b.Depth), cmp.Compare(a.SourcePath, b.SourcePath))
	}, limit)
}

type couplingRow struct {
	SourceModulePath  string         `json:"sourceModulePath"`
	SourceSourceSet   string         `json:"sourceSourceSet"`
	TargetModulePath  string         `json:"targetModulePath"`
	TargetSourceSet   string         `json:"targetSourceSet"`
	ReferenceCount    int            `json:"referenceCount"`
	PublicAPICount    int            `json:"publicApiCount"`
	InternalLeakCount int            `json:"internalLeakCount"`
	ByEdgeKind        map[string]int `json:"byEdgeKind"`
}

// coupling counts references between different modules. kast reports one
// module per root (as raw/workspace-files does), so a root has no pairs.
func (g *graph) coupling() []couplingRow {
	return []couplingRow{}
}

// search ranks fully qualified names: with no query the most referenced,
// else exact matches, then the shortest names containing the query.
func (g *graph) search(query string, keep func(string) bool, limit int) []string {
	out := []string{}
	if query == "" {
		for _, row := range g.fanIn(keep, limit) {
			out = append(out, row.TargetFqName)
		}
		return out
	}
	type hit struct {
		fq    string
		exact bool
	}
	var hits []hit
	seen := map[string]bool{}
	lower := strings.ToLower(query)
	for _, id := range g.decls {
		fq := g.fq(id)
		name := g.r.snap.File(id.Path).Defs[id.Index].Name
		if seen[fq] || !keep(id.Path) || !strings.Contains(strings.ToLower(fq), lower) {
			continue
		}
		seen[fq] = true
		hits = append(hits, hit{fq, fq == query || name == query})
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
	return out
}

type graphNode struct {
	FqName string `json:"fqName"`
	Kind   string `json:"kind"`
	Path   string `json:"path"`
	Depth  int    `json:"depth"`
}

type graphEdge struct {
	SourceFqName    string `json:"sourceFqName"`
	TargetFqName    string `json:"targetFqName"`
	EdgeKind        string `json:"edgeKind"`
	OccurrenceCount int    `json:"occurrenceCount"`
}

type graphResult struct {
	Nodes     []graphNode `json:"nodes"`
	Edges     []graphEdge `json:"edges"`
	Truncated bool        `json:"truncated"`
}

// neighbourhood is the declaration graph within depth edges of the symbol,
// both directions, at most limit nodes. Top-level code has no declaration
// and is left out.
func (g *graph) neighbourhood(symbol string, depth int, keep func(string) bool, limit int) graphResult {
	adj := map[resolve.DefID][]edge{}
	for _, e := range g.edges {
		if e.src.Index != analysis.None && e.src != e.target {
			adj[e.src] = append(adj[e.src], e)
			adj[e.target] = append(adj[e.target], e)
		}
	}
	res := graphResult{Nodes: []graphNode{}, Edges: []graphEdge{}}
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
		f := g.r.snap.File(id.Path)
		res.Nodes = append(res.Nodes, graphNode{g.fq(id), kastKind(f.Defs[id.Index].Kind), id.Path, d})
		return true
	}
	frontier := []resolve.DefID{}
	for _, id := range g.named(symbol) {
		if add(id, 0) {
			frontier = append(frontier, id)
		}
	}
	for d := 1; d <= depth && len(frontier) > 0; d++ {
		var next []resolve.DefID
		for _, id := range frontier {
			for _, e := range adj[id] {
				for _, n := range []resolve.DefID{e.src, e.target} {
					if add(n, d) {
						next = append(next, n)
					}
				}
			}
		}
		frontier = next
	}
	type key struct {
		src, dst resolve.DefID
		kind     string
	}
	counts := map[key]int{}
	var keys []key
	for id := range level {
		for _, e := range adj[id] {
			_, okS := level[e.src]
			_, okT := level[e.target]
			if k := (key{e.src, e.target, e.kind}); okS && okT && e.src == id {
				if counts[k] == 0 {
					keys = append(keys, k)
				}
				counts[k]++
			}
		}
	}
	for _, k := range keys {
		res.Edges = append(res.Edges, graphEdge{g.fq(k.src), g.fq(k.dst), k.kind, counts[k]})
	}
	slices.SortFunc(res.Edges, func(a, b graphEdge) int {
		return cmp.Or(cmp.Compare(a.SourceFqName, b.SourceFqName), cmp.Compare(a.TargetFqName, b.TargetFqName), cmp.Compare(a.EdgeKind, b.EdgeKind))
	})
	return res
}

// --- symbol/query

type queryFilters struct {
	ExcludePatterns    []string `json:"excludePatterns,omitempty"`
	FileGlob           *string  `json:"fileGlob,omitempty"`
	FqNamePrefix       *string  `json:"fqNamePrefix,omitempty"`
	GradleProject      *string  `json:"gradleProject,omitempty"`
	Kinds              []string `json:"kinds,omitempty"`
	ModulePath         *string  `json:"modulePath,omitempty"`
	PackagePrefix      *string  `json:"packagePrefix,omitempty"`
	ProductionOnly     bool     `json:"productionOnly"`
	RelativePathPrefix *string  `json:"relativePathPrefix,omitempty"`
	SourceSet          *string  `json:"sourceSet,omitempty"`
	UsageFacets        []string `json:"usageFacets,omitempty"`
	Visibility         []string `json:"visibility,omitempty"`
}

type queryAnchor struct {
	FilePath *string `json:"filePath,omitempty"`
	FqName   *string `json:"fqName,omitempty"`
	Offset   *int    `json:"offset,omitempty"`
	Symbol   *string `json:"symbol,omitempty"`
}

type queryGraph struct {
	Depth             *int     `json:"depth,omitempty"`
	Direction         *string  `json:"direction,omitempty"`
	EdgeKinds         []string `json:"edgeKinds,omitempty"`
	MaxEdgesPerResult *int     `json:"maxEdgesPerResult,omitempty"`
}

type querySemantic struct {
	Enabled       bool    `json:"enabled"`
	MaxCandidates *int    `json:"maxCandidates,omitempty"`
	Profile       *string `json:"profile,omitempty"`
}

type symbolQueryQuery struct {
	WorkspaceRoot       *string        `json:"workspaceRoot,omitempty"`
	Query               *string        `json:"query"`
	Modes               []string       `json:"modes,omitempty"`
	Filters             *queryFilters  `json:"filters,omitempty"`
	Anchor              *queryAnchor   `json:"anchor,omitempty"`
	Graph               *queryGraph    `json:"graph,omitempty"`
	Semantic            *querySemantic `json:"semantic,omitempty"`
	Limit               *int           `json:"limit"`
	IncludeEvidence     *bool          `json:"includeEvidence"`
	IncludeNextRequests bool           `json:"includeNextRequests"`
}

func (q *symbolQueryQuery) check() error {
	if q.Query == nil {
		return validation("Missing required field: query", nil)
	}
	if q.Limit == nil {
		q.Limit = ptr(25)
	}
	if q.IncludeEvidence == nil {
		q.IncludeEvidence = ptr(true)
	}
	if q.Filters == nil {
		q.Filters = &queryFilters{}
	}
	if q.Graph == nil {
		q.Graph = &queryGraph{}
	}
	if len(q.Modes) == 0 {
		q.Modes = []string{"exact", "lexical", "structural", "graph"}
	}
	for _, m := range q.Modes {
		if !slices.Contains([]string{"exact", "lexical", "structural", "graph", "semantic"}, m) {
			return validation("Unknown mode "+m, map[string]string{"modes": m})
		}
	}
	if q.Graph.Direction != nil && !slices.Contains([]string{"INCOMING", "OUTGOING", "BOTH"}, *q.Graph.Direction) {
		return validation("graph.direction must be INCOMING, OUTGOING or BOTH", nil)
	}
	return positive("limit", *q.Limit)
}

// queryKind is the declaration kind of Kast's source index.
func queryKind(k analysis.Kind) string {
	switch k {
	case analysis.KindEnum:
		return "ENUM_CLASS"
	case analysis.KindEnumEntry:
		return "ENUM_ENTRY"
	case analysis.KindTypeAlias:
		return "TYPEALIAS"
	case analysis.KindConstructor:
		return "CONSTRUCTOR"
	}
	return kastKind(k)
}

// usageFacets derives Kast's computed facets from visibility and path.
func usageFacets(vis, path string) []string {
	facets := []string{}
	switch vis {
	case "PUBLIC", "PROTECTED":
		facets = append(facets, "PUBLIC_API")
	case "INTERNAL":
		facets = append(facets, "INTERNAL_API")
	case "PRIVATE", "LOCAL":
		facets = append(facets, "MODULE_PRIVATE")
	}
	if strings.HasSuffix(path, ".gradle.kts") || strings.Contains(filepath.ToSlash(path), "/buildSrc/") {
		facets = append(facets, "BUILD_LOGIC")
	}
	return facets
}

type hardFilter struct {
	Field                 string `json:"field"`
	Value                 any    `json:"value"`
	Source                string `json:"source"`
	SatisfiedSymbolically bool   `json:"satisfiedSymbolically"`
}

type declFile struct {
	PrefixID int    `json:"prefixId"`
	DirPath  string `json:"dirPath"`
	Filename string `json:"filename"`
	Path     string `json:"path"`
}

// queryDecl is a declaration row; modulePath, sourceSet and
// declarationOffset are written even when null, as Kast's reader does.
type queryDecl struct {
	FqID              int      `json:"fqId"`
	FqName            string   `json:"fqName"`
	SimpleName        string   `json:"simpleName"`
	Kind              string   `json:"kind"`
	Visibility        string   `json:"visibility"`
	UsageFacets       []string `json:"usageFacets"`
	ModulePath        *string  `json:"modulePath"`
	SourceSet         *string  `json:"sourceSet"`
	File              declFile `json:"file"`
	DeclarationOffset *int     `json:"declarationOffset"`
}

type rankComponents struct {
	Exact      float64  `json:"exact"`
	Lexical    float64  `json:"lexical"`
	Structural float64  `json:"structural"`
	Graph      float64  `json:"graph"`
	Semantic   *float64 `json:"semantic"`
}

type queryRank struct {
	Position   int            `json:"position"`
	SortScore  float64        `json:"sortScore"`
	Components rankComponents `json:"components"`
}

type exactMatch struct {
	Field     string `json:"field"`
	MatchType string `json:"matchType"`
	Evidence  string `json:"evidence"`
}

type lexicalMatch struct {
	Field     string `json:"field"`
	Term      string `json:"term"`
	MatchType string `json:"matchType"`
	Evidence  string `json:"evidence"`
}

type graphPath struct {
	FromFqName   string  `json:"fromFqName"`
	EdgeKind     string  `json:"edgeKind"`
	ToFqName     string  `json:"toFqName"`
	SourceFile   *string `json:"sourceFile"`
	SourceOffset *int    `json:"sourceOffset"`
}

type querySignals struct {
	Exact struct {
		Matched bool         `json:"matched"`
		Matches []exactMatch `json:"matches"`
	} `json:"exact"`
	Lexical struct {
		Matched bool           `json:"matched"`
		Matches []lexicalMatch `json:"matches"`
	} `json:"lexical"`
	Structural struct {
		Matched     bool  `json:"matched"`
		Constraints []any `json:"constraints"`
	} `json:"structural"`
	Graph struct {
		Matched bool        `json:"matched"`
		Paths   []graphPath `json:"paths"`
	} `json:"graph"`
	Semantic struct {
		Available     bool   `json:"available"`
		Matched       bool   `json:"matched"`
		DiscoveryOnly bool   `json:"discoveryOnly"`
		Reason        string `json:"reason"`
	} `json:"semantic"`
}

type queryNext struct {
	Method  string         `json:"method"`
	Request map[string]any `json:"request"`
}

type queryNextRequests struct {
	SymbolResolve    queryNext `json:"symbolResolve"`
	SymbolReferences queryNext `json:"symbolReferences"`
	SymbolCallers    queryNext `json:"symbolCallers"`
	RawResolve       queryNext `json:"rawResolve"`
}

type queryResult struct {
	Declaration  queryDecl          `json:"declaration"`
	Rank         queryRank          `json:"rank"`
	Signals      querySignals       `json:"signals"`
	NextRequests *queryNextRequests `json:"nextRequests,omitempty"`
}

type symbolQuerySuccess struct {
	Type             string          `json:"type"`
	Query            string          `json:"query"`
	AvailableSignals map[string]bool `json:"availableSignals"`
	HardFilters      []hardFilter    `json:"hardFilters"`
	Results          []queryResult   `json:"results"`
}

type symbolQueryFailure struct {
	Type    string `json:"type"`
	Query   string `json:"query"`
	Reason  string `json:"reason"`
	Message string `json:"message"`
}

// words splits an identifier or query into lowercase words, camelCase
// included.
func words(s string) []string {
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

// symbolQuery ranks declarations by Kast's sortScore = exact + 0.7·lexical
// + 0.2·structural + graph, after the hard filters.
func (k *Service) symbolQuery(ctx context.Context, q *symbolQueryQuery) (any, error) {
	fail := func(reason, msg string) (any, error) {
		return symbolQueryFailure{"SYMBOL_QUERY_FAILURE", *q.Query, reason, msg}, nil
	}
	if strings.TrimSpace(*q.Query) == "" && q.Anchor == nil {
		return fail("QUERY_TOO_BROAD", "query may be empty only when an anchor is provided")
	}
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	g := r.graph()
	keep, hard := q.Filters.compile(r.root)
	mode := map[string]bool{}
	for _, m := range q.Modes {
		mode[m] = true
	}
	anchors, err := q.anchors(g)
	if err != nil {
		return fail("ANCHOR_NOT_FOUND", err.Error())
	}
	related := g.related(anchors, q.Graph)

	res := symbolQuerySuccess{Type: "SYMBOL_QUERY_SUCCESS", Query: *q.Query, HardFilters: hard, Results: []queryResult{},
		AvailableSignals: map[string]bool{"exact": true, "lexical": true, "structural": true, "graph": true, "semantic": false}}
	terms := words(*q.Query)
	lowerQuery := strings.ToLower(strings.TrimSpace(*q.Query))
	dirs := map[string]int{}
	for i, id := range g.decls {
		f := r.snap.File(id.Path)
		d := f.Defs[id.Index]
		fq := r.fqName(f, id.Index)
		vis := cmp.Or(visibility(f, id.Index), "PUBLIC")
		kind := queryKind(d.Kind)
		if !keep(id.Path, fq, kind, vis, qualifier(r.root, f)) {
			continue
		}
		var s querySignals
		var c rankComponents
		if mode["exact"] && lowerQuery != "" {
			if fq == *q.Query {
				s.Exact.Matches = append(s.Exact.Matches, exactMatch{"fq_names.fq_name", "EQUALS", fq})
			} else if d.Name == *q.Query {
				s.Exact.Matches = append(s.Exact.Matches, exactMatch{"declarations.simple_name", "SIMPLE_NAME_EQUALS", d.Name})
			}
		}
		if mode["lexical"] && len(terms) > 0 {
			have := words(fq)
			hit := 0
			for _, t := range terms {
				if slices.Contains(have, t) {
					hit++
					s.Lexical.Matches = append(s.Lexical.Matches, lexicalMatch{"fq_names.fq_name", t, "TOKEN", fq})
				}
			}
			if hit == 0 && strings.Contains(strings.ToLower(fq), lowerQuery) {
				hit = len(terms)
				s.Lexical.Matches = append(s.Lexical.Matches, lexicalMatch{"fq_names.fq_name", lowerQuery, "LIKE", fq})
			}
			c.Lexical = float64(hit) / float64(len(terms))
		}
		if mode["graph"] {
			s.Graph.Paths = related[id]
		}
		s.Exact.Matched, s.Lexical.Matched, s.Graph.Matched = len(s.Exact.Matches) > 0, len(s.Lexical.Matches) > 0, len(s.Graph.Paths) > 0
		if !s.Exact.Matched && !s.Lexical.Matched && !(s.Graph.Matched && lowerQuery == "") {
			continue
		}
		if s.Exact.Matched {
			c.Exact = 1
		}
		if s.Graph.Matched {
			c.Graph = 1
		}
		if mode["structural"] {
			s.Structural.Matched, c.Structural = true, 1
		}
		s.Structural.Constraints = []any{}
		s.Semantic.DiscoveryOnly, s.Semantic.Reason = true, "Semantic projection index is not configured"
		if !*q.IncludeEvidence {
			s.Exact.Matches, s.Lexical.Matches, s.Graph.Paths = nil, nil, nil
		}
		s.Exact.Matches, s.Lexical.Matches, s.Graph.Paths = orEmpty(s.Exact.Matches), orEmpty(s.Lexical.Matches), orEmpty(s.Graph.Paths)
		dir := filepath.Dir(id.Path)
		if dirs[dir] == 0 {
			dirs[dir] = len(dirs) + 1
		}
		rel, _ := filepath.Rel(r.root, dir)
		mod := moduleName(r.root)
		decl := queryDecl{FqID: i + 1, FqName: fq, SimpleName: d.Name, Kind: kind, Visibility: vis, UsageFacets: usageFacets(vis, id.Path),
			ModulePath: &mod, SourceSet: sourceSet(id.Path), File: declFile{dirs[dir], filepath.ToSlash(rel), filepath.Base(id.Path), id.Path},
			DeclarationOffset: ptr(d.NameSpan.Start)}
		result := queryResult{Declaration: decl, Signals: s,
			Rank: queryRank{SortScore: c.Exact + 0.7*c.Lexical + 0.2*c.Structural + c.Graph, Components: c}}
		if q.IncludeNextRequests {
			result.NextRequests = nextRequests(r.root, d.Name, id.Path, d.NameSpan.Start)
		}
		res.Results = append(res.Results, result)
	}
	slices.SortStableFunc(res.Results, func(a, b queryResult) int {
		return cmp.Or(cmp.Compare(b.Rank.SortScore, a.Rank.SortScore), cmp.Compare(a.Declaration.FqName, b.Declaration.FqName))
	})
	res.Results = res.Results[:min(len(res.Results), *q.Limit)]
	for i := range res.Results {
		res.Results[i].Rank.Position = i + 1
	}
	return res, nil
}

func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func nextRequests(root, name, path string, offset int) *queryNextRequests {
	sel := map[string]any{"workspaceRoot": root, "symbol": name, "fileHint": path}
	return &queryNextRequests{
		SymbolResolve:    queryNext{"symbol/resolve", sel},
		SymbolReferences: queryNext{"symbol/references", sel},
		SymbolCallers:    queryNext{"symbol/callers", sel},
		RawResolve:       queryNext{"raw/resolve", map[string]any{"position": map[string]any{"filePath": path, "offset": offset}}},
	}
}

// compile turns the filters into a predicate and lists them as hard filters.
func (f *queryFilters) compile(root string) (func(path, fq, kind, vis, pkg string) bool, []hardFilter) {
	hard := []hardFilter{}
	var preds []func(path, fq, kind, vis, pkg string) bool
	add := func(field string, value any, source string, p func(path, fq, kind, vis, pkg string) bool) {
		hard = append(hard, hardFilter{field, value, source, true})
		preds = append(preds, p)
	}
	rel := func(path string) string { r, _ := filepath.Rel(root, path); return filepath.ToSlash(r) }
	if len(f.Kinds) > 0 {
		add("kinds", f.Kinds, "declarations.kind", func(_, _, kind, _, _ string) bool { return slices.Contains(f.Kinds, kind) })
	}
	if len(f.Visibility) > 0 {
		add("visibility", f.Visibility, "declarations.visibility", func(_, _, _, vis, _ string) bool { return slices.Contains(f.Visibility, vis) })
	}
	if p := f.FqNamePrefix; p != nil {
		add("fqNamePrefix", *p, "fq_names.fq_name", func(_, fq, _, _, _ string) bool { return strings.HasPrefix(fq, *p) })
	}
	if p := f.PackagePrefix; p != nil {
		add("packagePrefix", *p, "file_metadata.package_fq_id", func(_, _, _, _, pkg string) bool { return strings.HasPrefix(pkg, *p) })
	}
	if p := f.RelativePathPrefix; p != nil {
		add("relativePathPrefix", *p, "path_prefixes.dir_path", func(path, _, _, _, _ string) bool { return strings.HasPrefix(rel(path), *p) })
	}
	if g := f.FileGlob; g != nil {
		re := globRegexp(*g)
		add("fileGlob", *g, "path_prefixes.dir_path + filename", func(path, _, _, _, _ string) bool { return re.MatchString(rel(path)) })
	}
	if len(f.ExcludePatterns) > 0 {
		var res []*regexp.Regexp
		for _, p := range f.ExcludePatterns {
			res = append(res, globRegexp(p))
		}
		add("excludePatterns", f.ExcludePatterns, "path_prefixes.dir_path + filename", func(path, _, _, _, _ string) bool {
			return !slices.ContainsFunc(res, func(re *regexp.Regexp) bool { return re.MatchString(rel(path)) })
		})
	}
	mod := moduleName(root)
	for field, v := range map[string]*string{"modulePath": f.ModulePath, "gradleProject": f.GradleProject} {
		if v != nil {
			add(field, *v, "declarations.module_path", func(_, _, _, _, _ string) bool { return *v == mod || *v == ":"+mod })
		}
	}
	if s := f.SourceSet; s != nil {
		add("sourceSet", *s, "declarations.source_set", func(path, _, _, _, _ string) bool { ss := sourceSet(path); return ss != nil && *ss == *s })
	}
	if f.ProductionOnly {
		add("productionOnly", true, "declarations.source_set", func(path, _, _, _, _ string) bool {
			ss := sourceSet(path)
			return !strings.Contains(strings.ToLower(valueOr(ss, "")), "test") && !strings.HasSuffix(path, "_test.go")
		})
	}
	if len(f.UsageFacets) > 0 {
		add("usageFacets", f.UsageFacets, "declarations + symbol_references + file_metadata + declaration_supertypes", func(path, _, _, vis, _ string) bool {
			return slices.ContainsFunc(usageFacets(vis, path), func(u string) bool { return slices.Contains(f.UsageFacets, u) })
		})
	}
	slices.SortStableFunc(hard, func(a, b hardFilter) int { return cmp.Compare(a.Field, b.Field) })
	return func(path, fq, kind, vis, pkg string) bool {
		for _, p := range preds {
			if !p(path, fq, kind, vis, pkg) {
				return false
			}
		}
		return true
	}, hard
}

// anchors resolves the anchor to declarations: by position, else fqName,
// else simple name.
func (q *symbolQueryQuery) anchors(g *graph) ([]resolve.DefID, error) {
	a := q.Anchor
	if a == nil {
		return nil, nil
	}
	var out []resolve.DefID
	switch {
	case a.FilePath != nil && a.Offset != nil:
		for _, c := range g.r.snap.Resolver().DefinitionAt(*a.FilePath, *a.Offset) {
			if !c.Uncertain {
				out = append(out, c.Def)
			}
		}
		if len(out) == 0 && a.FqName == nil && a.Symbol == nil {
			break
		}
		fallthrough
	case a.FqName != nil || a.Symbol != nil:
		if len(out) == 0 {
			out = g.named(cmp.Or(valueOr(a.FqName, ""), valueOr(a.Symbol, "")))
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the anchor matches no declaration")
	}
	return out, nil
}

// related maps each declaration within graph.depth (default 1, at most 2)
// edges of an anchor to the edges that connect it.
func (g *graph) related(anchors []resolve.DefID, o *queryGraph) map[resolve.DefID][]graphPath {
	out := map[resolve.DefID][]graphPath{}
	if len(anchors) == 0 {
		return out
	}
	depth := min(max(valueOr(o.Depth, 1), 1), 2)
	dir := valueOr(o.Direction, "BOTH")
	maxEdges := valueOr(o.MaxEdgesPerResult, 25)
	frontier := map[resolve.DefID]bool{}
	for _, a := range anchors {
		frontier[a] = true
	}
	for range depth {
		next := map[resolve.DefID]bool{}
		for _, e := range g.edges {
			if e.src.Index == analysis.None || len(o.EdgeKinds) > 0 && !slices.Contains(o.EdgeKinds, e.kind) {
				continue
			}
			var other resolve.DefID
			switch {
			case frontier[e.target] && dir != "OUTGOING":
				other = e.src // a caller of the anchor: incoming
			case frontier[e.src] && dir != "INCOMING":
				other = e.target
			default:
				continue
			}
			if len(out[other]) < maxEdges {
				src := e.src.Path
				out[other] = append(out[other], graphPath{g.fq(e.src), e.kind, g.fq(e.target), &src, ptr(e.offset)})
			}
			next[other] = true
		}
		frontier = next
	}
	return out
}
