package kast

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/symbolquery"
)

// symbol/query reads Kast's SQLite source index; kast ranks the
// declarations of its reference graph (analysis/symbolquery). This file
// decodes and checks the request, calls the engine and encodes the rows.

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

// The values Kast's source index knows for each enumerated filter.
var (
	filterKinds       = []string{"CLASS", "INTERFACE", "OBJECT", "FUNCTION", "PROPERTY", "TYPEALIAS", "ENUM_CLASS", "ENUM_ENTRY", "CONSTRUCTOR"}
	filterVisibility  = []string{"PUBLIC", "INTERNAL", "PROTECTED", "PRIVATE", "LOCAL"}
	filterUsageFacets = []string{"PUBLIC_API", "INTERNAL_API", "MODULE_PRIVATE", "BRIDGE", "BUILD_LOGIC"}
)

// invalid names the first filter value outside its enumeration, "" if none.
func (f *queryFilters) invalid() string {
	for _, c := range []struct {
		field       string
		got, values []string
	}{{"kinds", f.Kinds, filterKinds}, {"visibility", f.Visibility, filterVisibility}, {"usageFacets", f.UsageFacets, filterUsageFacets}} {
		for _, v := range c.got {
			if !slices.Contains(c.values, v) {
				return "filters." + c.field + " has unknown value " + v + "; use one of " + strings.Join(c.values, ", ")
			}
		}
	}
	return ""
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
		if !slices.Contains(symbolquery.Modes, m) {
			return validation("Unknown mode "+m, map[string]string{"modes": m})
		}
	}
	if q.Graph.Direction != nil && !slices.Contains([]string{graph.Incoming, graph.Outgoing, graph.Both}, *q.Graph.Direction) {
		return validation("graph.direction must be INCOMING, OUTGOING or BOTH", nil)
	}
	return positive("limit", *q.Limit)
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

func nextRequests(root, name, path string, offset int) *queryNextRequests {
	sel := map[string]any{"workspaceRoot": root, "symbol": name, "fileHint": path}
	return &queryNextRequests{
		SymbolResolve:    queryNext{"symbol/resolve", sel},
		SymbolReferences: queryNext{"symbol/references", sel},
		SymbolCallers:    queryNext{"symbol/callers", sel},
		RawResolve:       queryNext{"raw/resolve", map[string]any{"position": map[string]any{"filePath": path, "offset": offset}}},
	}
}

// symbolQuery answers symbol/query: an empty query needs an anchor, an
// anchor must name a declaration.
func (k *Service) symbolQuery(ctx context.Context, q *symbolQueryQuery) (any, error) {
	fail := func(reason, msg string) (any, error) {
		return symbolQueryFailure{"SYMBOL_QUERY_FAILURE", *q.Query, reason, msg}, nil
	}
	if strings.TrimSpace(*q.Query) == "" && q.Anchor == nil {
		return fail("QUERY_TOO_BROAD", "query may be empty only when an anchor is provided")
	}
	if msg := q.Filters.invalid(); msg != "" {
		return fail("INVALID_FILTER", msg)
	}
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	eq := q.engineQuery()
	if a := eq.Anchor; a != nil && a.FilePath != "" {
		// The anchor is only looked up in the index, but it is a path the
		// client names: confined like the others, it finds a file named
		// through a link, and one outside is reported as not found.
		path, err := r.confine(a.FilePath, confine.Read)
		if err != nil {
			return fail("ANCHOR_NOT_FOUND", err.Error())
		}
		a.FilePath = path
	}
	g, err := r.graph(ctx)
	if err != nil {
		return nil, err
	}
	ans, err := symbolquery.Run(ctx, g, eq)
	if errors.Is(err, symbolquery.ErrAnchorNotFound) {
		return fail("ANCHOR_NOT_FOUND", err.Error())
	}
	if err != nil {
		return nil, err
	}
	res := symbolQuerySuccess{Type: "SYMBOL_QUERY_SUCCESS", Query: *q.Query, HardFilters: []hardFilter{}, Results: []queryResult{},
		AvailableSignals: map[string]bool{"exact": true, "lexical": true, "structural": true, "graph": true, "semantic": false}}
	for _, h := range ans.HardFilters {
		res.HardFilters = append(res.HardFilters, hardFilter{h.Field, h.Value, h.Source, true})
	}
	for _, row := range ans.Results {
		result := queryResultWire(r.root, row)
		if q.IncludeNextRequests {
			result.NextRequests = nextRequests(r.root, row.SimpleName, row.ID.Path, row.Offset)
		}
		res.Results = append(res.Results, result)
	}
	return res, nil
}

// engineQuery is the request with its defaults, as the engine takes it.
func (q *symbolQueryQuery) engineQuery() symbolquery.Query {
	f := q.Filters
	eq := symbolquery.Query{Text: *q.Query, Modes: q.Modes, Limit: *q.Limit, Evidence: *q.IncludeEvidence,
		Filters: symbolquery.Filters{Kinds: f.Kinds, Visibility: f.Visibility, UsageFacets: f.UsageFacets, ExcludePatterns: f.ExcludePatterns,
			FQNamePrefix: f.FqNamePrefix, PackagePrefix: f.PackagePrefix, RelativePathPrefix: f.RelativePathPrefix, FileGlob: f.FileGlob,
			ModulePath: f.ModulePath, GradleProject: f.GradleProject, SourceSet: f.SourceSet, ProductionOnly: f.ProductionOnly},
		Graph: graph.RelatedOptions{Depth: valueOr(q.Graph.Depth, 1), Direction: valueOr(q.Graph.Direction, graph.Both),
			EdgeKinds: q.Graph.EdgeKinds, MaxEdges: valueOr(q.Graph.MaxEdgesPerResult, 25)}}
	if a := q.Anchor; a != nil {
		eq.Anchor = &symbolquery.Anchor{FilePath: valueOr(a.FilePath, ""), Offset: a.Offset, FQName: valueOr(a.FqName, ""), Symbol: valueOr(a.Symbol, "")}
	}
	return eq
}

// queryResultWire encodes one ranked declaration; the evidence lists are
// written empty rather than null.
func queryResultWire(root string, row symbolquery.Result) queryResult {
	var s querySignals
	s.Exact.Matched, s.Lexical.Matched, s.Graph.Matched = row.ExactMatched, row.LexicalMatched, row.GraphMatched
	s.Structural.Matched, s.Structural.Constraints = row.StructuralMatched, []any{}
	s.Semantic.DiscoveryOnly, s.Semantic.Reason = true, "Semantic projection index is not configured"
	s.Exact.Matches, s.Lexical.Matches, s.Graph.Paths = []exactMatch{}, []lexicalMatch{}, []graphPath{}
	for _, m := range row.ExactMatches {
		s.Exact.Matches = append(s.Exact.Matches, exactMatch{m.Field, m.MatchType, m.Evidence})
	}
	for _, m := range row.LexicalMatches {
		s.Lexical.Matches = append(s.Lexical.Matches, lexicalMatch{m.Field, m.Term, m.MatchType, m.Evidence})
	}
	for _, p := range row.GraphPaths {
		s.Graph.Paths = append(s.Graph.Paths, graphPath{p.From, p.Kind, p.To, ptr(p.SourceFile), ptr(p.SourceOffset)})
	}
	c := row.Components
	return queryResult{
		Declaration: queryDecl{FqID: row.Ordinal, FqName: row.FQName, SimpleName: row.SimpleName, Kind: row.Kind, Visibility: row.Visibility,
			UsageFacets: row.Facets, ModulePath: ptr(naming.RootModule(root)), SourceSet: optional(row.SourceSet),
			File: declFile{row.DirOrdinal, row.Dir, filepath.Base(row.ID.Path), row.ID.Path}, DeclarationOffset: ptr(row.Offset)},
		Rank:    queryRank{Position: row.Position, SortScore: row.Score, Components: rankComponents{Exact: c.Exact, Lexical: c.Lexical, Structural: c.Structural, Graph: c.Graph}},
		Signals: s,
	}
}
