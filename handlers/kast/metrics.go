package kast

import (
	"context"
	"reflect"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/graph"
	"github.com/kast-dev/kast/analysis/naming"
)

// database/metrics reads Kast's SQLite source index; kast answers it from
// its reference graph (analysis/graph), which holds what Kast's
// symbol_references table does. This file decodes, calls the graph and
// encodes Kast's rows.

// graphBuildProgress, when set, hears of each graph build's progress with
// the request's context: tests use it to cancel a build while it runs.
var graphBuildProgress func(ctx context.Context, done, total int)

// graph builds the request's reference graph, stopping when ctx is done.
func (r *kastRequest) graph(ctx context.Context) (*graph.Graph, error) {
	var progress graph.Progress
	if hook := graphBuildProgress; hook != nil {
		progress = func(done, total int) { hook(ctx, done, total) }
	}
	return graph.Build(ctx, r.snap, r.root, progress)
}

// confidence is Kast's per-row confidence.
type confidence struct {
	Level             string  `json:"level"`
	IndexCompleteness float64 `json:"indexCompleteness"`
	SemanticBasis     string  `json:"semanticBasis"`
}

func wireConfidence(c graph.Confidence) confidence {
	return confidence{c.Level, c.IndexCompleteness, c.SemanticBasis}
}

// metricsQuery is echoed with its absent optionals as null, as Kast's Rust
// reader writes them; offset and subject come from Kast's later catalog.
type metricsQuery struct {
	WorkspaceRoot *string        `json:"workspaceRoot"`
	Metric        *string        `json:"metric"`
	Limit         *int           `json:"limit"`
	Symbol        *string        `json:"symbol"`
	Depth         *int           `json:"depth"`
	FileGlob      *string        `json:"fileGlob"`
	FolderFilter  *string        `json:"folderFilter"`
	Offset        *int           `json:"offset,omitempty"`
	Subject       *metricSubject `json:"subject,omitempty"`
}

// metricSubject names a declaration exactly, in place of symbol.
type metricSubject struct {
	FqName                 string `json:"fqName"`
	DeclarationFile        string `json:"declarationFile"`
	DeclarationStartOffset int    `json:"declarationStartOffset"`
	Kind                   string `json:"kind"`
}

// kastMetrics are the metrics the RPC path serves; "graph" is in Kast's
// enum but its RPC path reports it unsupported (only its CLI draws it).
var kastMetrics = []string{"fanIn", "fanOut", "deadCode", "impact", "coupling", "search"}

func (q *metricsQuery) check() error {
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
	Query         *metricsQuery `json:"query"`
	LogFile       string        `json:"logFile"`
	SchemaVersion int           `json:"schemaVersion"`
}

// metrics answers database/metrics; bad arguments (a missing metric too)
// are METRICS_FAILURE results at stage "validate", as Kast's reader
// reports them.
func (k *Service) metrics(ctx context.Context, q *metricsQuery) (any, error) {
	fail := func(msg string) (any, error) {
		return metricsFailure{"METRICS_FAILURE", false, "validate", msg, q, "", kastSchemaVersion}, nil
	}
	switch {
	case q.Metric == nil:
		return metricsFailure{"METRICS_FAILURE", false, "validate", "Missing required field: metric", nil, "", kastSchemaVersion}, nil
	case *q.Metric == "graph":
		return fail("METRICS_UNSUPPORTED: the graph metric is not served over JSON-RPC; use one of " + strings.Join(kastMetrics, ", "))
	case !slices.Contains(kastMetrics, *q.Metric):
		return fail("Unknown metric " + *q.Metric + "; use one of " + strings.Join(kastMetrics, ", "))
	case *q.Limit < 1 || *q.Depth < 0 || valueOr(q.Offset, 0) < 0:
		return fail("limit must be at least 1, depth and offset not negative")
	}
	if s := q.Subject; s != nil && q.Symbol == nil {
		q.Symbol = &s.FqName
	}
	if *q.Metric == "impact" && q.Symbol == nil {
		return fail("impact needs a symbol or subject")
	}
	r, err := k.symbolRequest(ctx, &q.WorkspaceRoot, "")
	if err != nil {
		return nil, err
	}
	g, err := r.graph(ctx)
	if err != nil {
		return nil, err
	}
	// offset pages through the rows: the first offset+limit are computed
	// and the first offset dropped.
	offset := valueOr(q.Offset, 0)
	paged := *q
	paged.Limit = ptr(*q.Limit + offset)
	results, err := metricResults(ctx, g, &paged, graph.PathFilter(r.root, valueOr(q.FileGlob, ""), valueOr(q.FolderFilter, "")))
	if err != nil {
		return nil, err
	}
	results = skipRows(results, offset)
	return metricsSuccess{"METRICS_SUCCESS", true, q, results, "", kastSchemaVersion}, nil
}

// metricResults computes the query's metric over g and encodes its rows.
func metricResults(ctx context.Context, g *graph.Graph, q *metricsQuery, keep graph.Keep) (any, error) {
	switch *q.Metric {
	case "fanIn":
		rows, err := g.FanIn(ctx, keep, *q.Limit)
		return wireRows(rows, func(row graph.FanIn) fanInRow { return fanInWire(g, row) }), err
	case "fanOut":
		rows, err := g.FanOut(ctx, keep, *q.Limit)
		return wireRows(rows, func(row graph.FanOut) fanOutRow { return fanOutWire(g, row) }), err
	case "deadCode":
		rows, err := g.DeadCode(ctx, keep, *q.Limit)
		return wireRows(rows, func(row graph.Dead) deadCodeRow { return deadCodeWire(g, row) }), err
	case "impact":
		rows, err := g.Impact(ctx, *q.Symbol, *q.Depth, keep, *q.Limit)
		return wireRows(rows, func(row graph.Impact) impactRow { return impactWire(g, row) }), err
	case "coupling":
		rows, err := g.Coupling(ctx, keep, *q.Limit)
		return wireRows(rows, couplingWire), err
	default: // "search"
		return g.Search(ctx, valueOr(q.Symbol, ""), keep, *q.Limit)
	}
}

// skipRows drops the first n rows of a metric's result list.
func skipRows(results any, n int) any {
	v := reflect.ValueOf(results)
	if n == 0 || v.Kind() != reflect.Slice {
		return results
	}
	return v.Slice(min(n, v.Len()), v.Len()).Interface()
}

// wireRows maps an engine's rows to wire rows.
func wireRows[T, W any](rows []T, wire func(T) W) []W {
	out := make([]W, len(rows))
	for i, row := range rows {
		out[i] = wire(row)
	}
	return out
}

type fanInRow struct {
	TargetFqName      string         `json:"targetFqName"`
	TargetPath        *string        `json:"targetPath"`
	TargetModulePath  *string        `json:"targetModulePath"`
	TargetSourceSet   *string        `json:"targetSourceSet"`
	OccurrenceCount   int            `json:"occurrenceCount"`
	SourceFileCount   int            `json:"sourceFileCount"`
	SourceModuleCount int            `json:"sourceModuleCount"`
	ByEdgeKind        map[string]int `json:"byEdgeKind"`
	Confidence        confidence     `json:"confidence"`
}

// fanInWire reports one module per root, as raw/workspace-files does.
func fanInWire(g *graph.Graph, row graph.FanIn) fanInRow {
	return fanInRow{TargetFqName: row.FQName, TargetPath: ptr(row.Target.Path), TargetModulePath: ptr(naming.RootModule(g.Root)),
		TargetSourceSet: optional(naming.SourceSet(row.Target.Path)), OccurrenceCount: row.Occurrences, SourceFileCount: row.SourceFiles,
		SourceModuleCount: 1, ByEdgeKind: row.ByEdgeKind, Confidence: wireConfidence(g.Confidence("LOW"))}
}

type fanOutRow struct {
	SourcePath          string         `json:"sourcePath"`
	SourceModulePath    *string        `json:"sourceModulePath"`
	SourceSourceSet     *string        `json:"sourceSourceSet"`
	OccurrenceCount     int            `json:"occurrenceCount"`
	TargetSymbolCount   int            `json:"targetSymbolCount"`
	TargetFileCount     int            `json:"targetFileCount"`
	TargetModuleCount   int            `json:"targetModuleCount"`
	ExternalTargetCount int            `json:"externalTargetCount"`
	ByEdgeKind          map[string]int `json:"byEdgeKind"`
	Confidence          confidence     `json:"confidence"`
}

// fanOutWire: the graph holds workspace targets only, so
// externalTargetCount is 0.
func fanOutWire(g *graph.Graph, row graph.FanOut) fanOutRow {
	return fanOutRow{SourcePath: row.Path, SourceModulePath: ptr(naming.RootModule(g.Root)), SourceSourceSet: optional(naming.SourceSet(row.Path)),
		OccurrenceCount: row.Occurrences, TargetSymbolCount: row.TargetSymbols, TargetFileCount: row.TargetFiles, TargetModuleCount: 1,
		ByEdgeKind: row.ByEdgeKind, Confidence: wireConfidence(g.Confidence("LOW"))}
}

type deadCodeRow struct {
	FqName     string     `json:"fqName"`
	Kind       string     `json:"kind"`
	Visibility string     `json:"visibility"`
	Path       string     `json:"path"`
	ModulePath string     `json:"modulePath"`
	SourceSet  *string    `json:"sourceSet"`
	Confidence confidence `json:"confidence"`
	Reason     string     `json:"reason"`
}

func deadCodeWire(g *graph.Graph, row graph.Dead) deadCodeRow {
	return deadCodeRow{row.FQName, row.Kind, row.Visibility, row.ID.Path, naming.RootModule(g.Root), optional(naming.SourceSet(row.ID.Path)),
		wireConfidence(g.Confidence(row.Level)), "No references to this declaration in the workspace index"}
}

type impactRow struct {
	SourcePath      string     `json:"sourcePath"`
	Depth           int        `json:"depth"`
	ViaTargetFqName string     `json:"viaTargetFqName"`
	EdgeKind        *string    `json:"edgeKind"`
	OccurrenceCount int        `json:"occurrenceCount"`
	Confidence      confidence `json:"confidence"`
}

func impactWire(g *graph.Graph, row graph.Impact) impactRow {
	return impactRow{row.Path, row.Depth, row.Via, ptr(row.EdgeKind), row.Occurrences, wireConfidence(g.Confidence("LOW"))}
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

func couplingWire(row graph.Coupling) couplingRow {
	return couplingRow{row.SourceModule, row.SourceSourceSet, row.TargetModule, row.TargetSourceSet,
		row.References, row.PublicAPI, row.InternalLeaks, row.ByEdgeKind}
}
