package ck

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/kast-dev/kast/analysis/confine"
	"github.com/kast-dev/kast/analysis/search"
)

// Error codes, JSON-RPC's, as ck uses them.
const (
	CodeInvalidParams = -32602
	CodeInternal      = -32603
)

// Error is a tool failure to answer as a JSON-RPC error.
type Error struct {
	Code    int
	Message string
}

func (e *Error) Error() string { return e.Message }

func invalid(format string, a ...any) error {
	return &Error{Code: CodeInvalidParams, Message: fmt.Sprintf(format, a...)}
}

// Defaults, as ck's MCP server has them.
const (
	DefaultTopK           = 10
	DefaultPageSize       = 50
	MaxPageSize           = 200
	DefaultSnippetLength  = 500
	MaxSnippetLength      = 2000
	DefaultHybridMin      = 0.02
	CursorTTL             = 5 * time.Minute
	maxSessions           = 100
	ServerName            = "kast-ck"
	ProtocolCompatVersion = "2024-11-05"
)

// Service answers the ck tools for the workspaces under Roots: tool names,
// argument names and defaults as ck's MCP server has them, paging with
// opaque cursors, and paths confined to the roots.
type Service struct {
	// Roots are the absolute directories tool paths must lie in; RootsFunc,
	// when set, is asked instead on every call (an editor's folders change).
	Roots     []string
	RootsFunc func() []string
	// Engine returns the search engine of the workspace holding dir (one of
	// Roots).
	Engine  func(root string) (*search.Engine, error)
	Version string
	// Now and TTL govern cursor expiry (tests shorten them).
	Now func() time.Time
	TTL time.Duration
	// IndexWait bounds how long a call waits for its index to be built or
	// refreshed (0: as long as it takes); then ranked searches report the
	// build's progress and regex_search scans the files directly.
	IndexWait time.Duration

	once     sync.Once
	key      []byte
	mu       sync.Mutex
	sessions map[string]*session
	runs     map[*search.Engine]*indexRun // the latest refresh of each engine
	indexed  map[*search.Engine]int       // files each engine's refreshes indexed
}

type session struct {
	id       string
	params   string // hash of the query's parameters
	results  []Match
	pageSize int
	summary  map[string]any
	created  time.Time
}

func (s *Service) init() {
	s.once.Do(func() {
		s.key = make([]byte, 32)
		rand.Read(s.key)
		s.sessions = map[string]*session{}
		if s.Now == nil {
			s.Now = time.Now
		}
		if s.TTL == 0 {
			s.TTL = CursorTTL
		}
	})
}

// Result is a tool's answer: a text summary for people and a JSON object
// for programs (MCP structuredContent).
type Result struct {
	Text    string
	JSON    map[string]any
	IsError bool // a tool error the model should read (MCP isError), not a protocol error
}

// Progress reports indexing done on a tool's behalf.
type Progress func(search.Progress)

// Call runs one tool with its JSON arguments.
func (s *Service) Call(ctx context.Context, tool string, args json.RawMessage, progress Progress) (*Result, error) {
	s.init()
	if len(bytes.TrimSpace(args)) == 0 || string(bytes.TrimSpace(args)) == "null" {
		args = json.RawMessage("{}")
	}
	switch tool {
	case "health_check":
		wd, _ := os.Getwd()
		return jsonResult(map[string]any{"status": "healthy", "server": ServerName, "version": s.Version,
			"protocol": "mcp", "timestamp": s.Now().UTC().Format(time.RFC3339), "cwd": wd}), nil
	case "default_ckignore":
		return jsonResult(map[string]any{"ckignore": search.DefaultCkignore,
			"length": strings.Count(search.DefaultCkignore, "\n")}), nil
	case "index_status":
		var a struct {
			Path string `json:"path"`
		}
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		eng, _, err := s.engine(a.Path)
		if err != nil {
			return nil, err
		}
		st, err := eng.Status()
		if err != nil {
			return nil, &Error{Code: CodeInternal, Message: "failed to load index: " + err.Error()}
		}
		return jsonResult(map[string]any{"indexed": st.Indexed, "root": st.Root, "file_count": st.Files,
			"chunk_count": st.Chunks, "embedded_chunks": st.Embedded, "embedding_model": st.Model,
			"embedding_dimensions": st.Dim, "index_size_bytes": st.IndexBytes, "index_size_mb": float64(st.IndexBytes) / 1e6,
			"source_size_bytes": st.SourceBytes, "last_updated": lastUpdated(st.Updated),
			"indexing": s.indexingStatus(eng)}), nil
	case "reindex":
		var a struct {
			Path  string `json:"path"`
			Force *bool  `json:"force"`
		}
		if err := decode(args, &a); err != nil {
			return nil, err
		}
		eng, _, err := s.engine(a.Path)
		if err != nil {
			return nil, err
		}
		run, ready, err := s.awaitIndex(ctx, eng, a.Force == nil || *a.Force, s.IndexWait, progress)
		if err != nil {
			return nil, &Error{Code: CodeInternal, Message: "reindex failed: " + err.Error()}
		}
		if !ready {
			return notReady(eng.Root(), run), nil
		}
		rep := run.rep
		return jsonResult(map[string]any{"status": "success", "files_indexed": rep.Indexed, "files": rep.Files,
			"chunks_created": rep.NewChunks, "chunks_embedded": rep.Embedded, "time_seconds": rep.Duration.Seconds()}), nil
	case "regex_search", "semantic_search", "lexical_search", "hybrid_search":
		return s.search(ctx, tool, args, progress)
	}
	return nil, invalid("unknown tool %q", tool)
}

// decode reads a tool's arguments; unknown ones are ignored, as ck's
// serde structs ignore them, but a known one of the wrong type is refused.
// lastUpdated is an index's last write in RFC 3339, or null when it was
// never built.
func lastUpdated(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t.UTC().Format(time.RFC3339)
}

func decode(args json.RawMessage, v any) error {
	if err := json.Unmarshal(args, v); err != nil {
		return invalid("Invalid parameters: %v", err)
	}
	return nil
}

func jsonResult(v map[string]any) *Result {
	b, _ := json.MarshalIndent(v, "", "  ")
	return &Result{Text: string(b), JSON: v}
}

// rootInEngine is root as the engine rooted at engRoot names it: engRoot
// itself, or a folder below it when the engine is a parent's.
func rootInEngine(engRoot, root string) string {
	real := func(p string) string {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			return r
		}
		return p
	}
	rel, err := filepath.Rel(real(engRoot), real(root))
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return engRoot
	}
	return filepath.Join(engRoot, rel)
}

func (s *Service) roots() []string {
	if s.RootsFunc != nil {
		return s.RootsFunc()
	}
	return s.Roots
}

// engine confines path to the roots and returns its workspace's engine.
func (s *Service) engine(path string) (*search.Engine, string, error) {
	if path == "" {
		return nil, "", invalid("missing required parameter: path")
	}
	// Not cleaned: a ".." after a link is the confinement rule's to judge
	// (filepath.Abs would drop it, and the path the OS reads with it).
	abs := path
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, "", invalid("invalid path: %s", path)
		}
		abs = wd + string(filepath.Separator) + path
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, "", invalid("invalid path: %s: does not exist or is not readable", path)
	}
	roots := s.roots()
	var refusal *confine.Error
	for _, root := range roots {
		real, err := confine.Check([]string{root}, abs, confine.Read)
		if err != nil {
			// The root the path is under says why; the others only say "outside".
			if refusal == nil || refusal.Reason == confine.OutsideWorkspace {
				errors.As(err, &refusal)
			}
			continue
		}
		eng, err := s.Engine(root)
		if err != nil {
			return nil, "", &Error{Code: CodeInternal, Message: "failed to load index: " + err.Error()}
		}
		// Report paths under the root as the engine knows it; the engine's
		// root may be a folder around the root whose index it shares.
		rel, _ := filepath.Rel(root, real)
		return eng, filepath.Join(rootInEngine(eng.Root(), root), rel), nil
	}
	if refusal != nil && refusal.Reason != confine.OutsideWorkspace {
		return nil, "", invalid("invalid path: %v", refusal)
	}
	return nil, "", invalid("invalid path: %s is outside the workspace roots %v", path, roots)
}

// Match is one result, in ck's JSON shape.
type Match struct {
	File struct {
		Path     string `json:"path"`
		Language string `json:"language,omitempty"`
	} `json:"file"`
	Match struct {
		Span struct {
			ByteStart int `json:"byte_start"`
			ByteEnd   int `json:"byte_end"`
			LineStart int `json:"line_start"`
			LineEnd   int `json:"line_end"`
		} `json:"span"`
		Content    string   `json:"content"`
		Score      *float64 `json:"score,omitempty"`
		RRFScore   *float64 `json:"rrf_score,omitempty"`
		LineNumber int      `json:"line_number"`
		Name       string   `json:"name,omitempty"`
		Kind       string   `json:"kind,omitempty"`
	} `json:"match"`
	Type string `json:"type"`
}

func (s *Service) search(ctx context.Context, tool string, raw json.RawMessage, progress Progress) (*Result, error) {
	var a searchArgs
	if err := decode(raw, &a); err != nil {
		return nil, err
	}
	if err := a.validate(); err != nil {
		return nil, err
	}
	mode := strings.TrimSuffix(tool, "_search")
	text := a.Query
	if mode == "regex" {
		text = a.Pattern
		if text == "" {
			return nil, invalid("missing required parameter: pattern")
		}
	} else if text == "" {
		return nil, invalid("missing required parameter: query")
	}
	pageSize := DefaultPageSize
	if a.PageSize != nil {
		pageSize = min(max(*a.PageSize, 1), MaxPageSize)
	}
	params := cursorKey(tool, a)

	if a.Cursor != "" {
		sess, offset, err := s.decodeCursor(a.Cursor, params)
		if err != nil {
			return nil, err
		}
		return s.page(sess, offset, sess.pageSize, 0, nil), nil
	}
	eng, scopePath, err := s.engine(a.Path)
	if err != nil {
		return nil, err
	}
	scope := search.Scope{Paths: []string{scopePath}, Include: a.Include, Exclude: a.Exclude, Filter: a.filter()}
	wait := s.IndexWait
	if mode == "regex" && wait > 0 {
		wait = min(wait, regexIndexWait)
	}
	run, ready, err := s.awaitIndex(ctx, eng, false, wait, progress)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, &Error{Code: CodeInternal, Message: "failed to update the index: " + err.Error()}
	}
	var rep search.IndexReport
	switch {
	case ready:
		rep = run.rep
	case mode != "regex":
		return notReady(eng.Root(), run), nil
	}
	// Not ready, regex: the engine scans the files its index does not
	// hold yet directly, so the answer is complete, only slower.
	start := time.Now()
	matches, skipped, err := find(ctx, eng, mode, text, a, scope)
	if err != nil {
		return nil, err
	}
	elapsed := time.Since(start)
	summary := map[string]any{
		"search": map[string]any{"query": text, "mode": mode, "parameters": a.parameters(mode)},
		"metadata": map[string]any{
			"search_time_ms": elapsed.Milliseconds(),
			"skipped":        skipped,
			"index_stats":    nil,
			"indexing": map[string]any{"triggered": rep.Indexed+rep.Removed > 0, "files_indexed": rep.Indexed,
				"orphaned_files_removed": rep.Removed, "duration_ms": rep.Duration.Milliseconds()},
		},
	}
	if !ready { // beside ck's fields only when kast answered without its index
		summary["metadata"].(map[string]any)["indexing"].(map[string]any)["in_progress"] = true
	}
	sess := s.newSession(params, matches, pageSize, summary)
	return s.page(sess, 0, pageSize, elapsed, rep.Duration.Round(time.Millisecond).String()), nil
}

// cursorKey binds a cursor to everything that shapes the result list: the
// tool and its arguments but the cursor and page size. nb is the arguments
// as the summary reports them.
func cursorKey(tool string, a searchArgs) string {
	normalized := a
	normalized.Cursor, normalized.PageSize = "", nil
	nb, _ := json.Marshal(struct {
		Tool string
		Args searchArgs
	}{tool, normalized})
	sum := sha256.Sum256(nb)
	return base64.RawURLEncoding.EncodeToString(sum[:16])
}

// skip is a path a search passed over, and why.
type skip struct {
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// find runs one search mode over the engine and turns its results into ck
// matches, with the paths it passed over.
func find(ctx context.Context, eng *search.Engine, mode, text string, a searchArgs, scope search.Scope) ([]Match, []skip, error) {
	withSnippet := flag(a.IncludeSnippet, true)
	snippetLen := min(max(intOr(a.SnippetLength, DefaultSnippetLength), 1), MaxSnippetLength)
	matches := []Match{}
	skipped := []skip{}
	ignoreCase := flag(a.IgnoreCase, false) || flag(a.CaseInsensitive, false)
	if mode == "regex" {
		ctxLines := max(intOr(a.Context, 0), intOr(a.ContextLines, 0))
		res, err := eng.Regex(ctx, search.RegexQuery{Pattern: text, IgnoreCase: ignoreCase,
			WholeWord: flag(a.WholeWord, false), Fixed: flag(a.FixedString, false),
			Before: max(ctxLines, intOr(a.Before, 0)), After: max(ctxLines, intOr(a.After, 0)), Scope: scope})
		if err != nil {
			if ctx.Err() != nil {
				return nil, nil, ctx.Err()
			}
			return nil, nil, invalid("%v", err)
		}
		for _, l := range res.Lines {
			matches = append(matches, lineMatch(l, withSnippet, snippetLen))
		}
		for _, s := range res.Skipped {
			skipped = append(skipped, skip{s.Path, s.Reason})
		}
		if res.Binary > 0 {
			skipped = append(skipped, skip{"", fmt.Sprintf("%d binary files (holding a NUL byte)", res.Binary)})
		}
		return matches, skipped, nil
	}
	q := search.RankedQuery{Query: text, TopK: DefaultTopK, Scope: scope, Rerank: flag(a.Rerank, false)}
	if a.TopK != nil {
		q.TopK = max(*a.TopK, 1)
	}
	var hits []search.Hit
	var err error
	switch mode {
	case "semantic":
		q.Threshold = -1
		if a.Threshold != nil {
			q.Threshold = *a.Threshold
		}
		hits, err = eng.Semantic(ctx, q)
	case "lexical":
		if a.Threshold != nil {
			q.Threshold = *a.Threshold
		}
		hits, err = eng.Lexical(ctx, q)
	default:
		q.Threshold = DefaultHybridMin
		if a.Threshold != nil {
			q.Threshold = *a.Threshold
		}
		hits, err = eng.Hybrid(ctx, q)
	}
	if err != nil {
		return nil, nil, &Error{Code: CodeInternal, Message: err.Error()}
	}
	ctxLines := intOr(a.ContextLines, 0)
	for _, h := range hits {
		matches = append(matches, hitMatch(h, mode, withSnippet, snippetLen, max(ctxLines, intOr(a.Before, 0)), max(ctxLines, intOr(a.After, 0))))
	}
	return matches, skipped, nil
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8Start(s[n]) {
		n--
	}
	return s[:n] + "…"
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }

func lineMatch(l search.LineMatch, snippet bool, n int) Match {
	var m Match
	m.File.Path = l.Path
	m.File.Language = language(l.Path)
	m.Match.Span.ByteStart, m.Match.Span.ByteEnd = l.Offset, l.Offset+len(l.Text)
	m.Match.Span.LineStart, m.Match.Span.LineEnd = l.Line, l.Line
	m.Match.LineNumber = l.Line
	if snippet {
		var b strings.Builder
		for _, c := range l.Before {
			b.WriteString(c.Text + "\n")
		}
		b.WriteString(l.Text)
		for _, c := range l.After {
			b.WriteString("\n" + c.Text)
		}
		m.Match.Content = clip(b.String(), n)
	}
	m.Type = "regex_match"
	return m
}

func hitMatch(h search.Hit, mode string, snippet bool, n, before, after int) Match {
	var m Match
	m.File.Path = h.Path
	m.File.Language = language(h.Path)
	c := h.Chunk
	m.Match.Span.ByteStart, m.Match.Span.ByteEnd = c.Start, c.End
	m.Match.Span.LineStart, m.Match.Span.LineEnd = c.StartLine, c.EndLine
	m.Match.LineNumber = c.StartLine
	m.Match.Name, m.Match.Kind = c.Name, c.Kind
	score := h.Score
	m.Match.Score = &score
	if mode == "hybrid" {
		m.Match.RRFScore = &score // ck reports the fused score under both names
	}
	if snippet {
		text := h.Text
		if before+after > 0 {
			text = withContext(h, before, after)
		}
		m.Match.Content = clip(text, n)
	}
	m.Type = mode + "_match"
	return m
}

// withContext adds lines around a chunk's text.
func withContext(h search.Hit, before, after int) string {
	src, err := os.ReadFile(h.Path) // chunk offsets are the index's, of the file's bytes
	if err != nil || h.Chunk.End > len(src) {
		return h.Text
	}
	lines := strings.SplitAfter(string(src), "\n")
	from := max(0, h.Chunk.StartLine-1-before)
	to := min(len(lines), h.Chunk.EndLine+after)
	return strings.Join(lines[from:to], "")
}

func language(p string) string {
	ext := strings.TrimPrefix(filepath.Ext(p), ".")
	switch ext {
	case "go":
		return "go"
	case "kt", "kts":
		return "kotlin"
	case "py":
		return "python"
	case "ts", "tsx":
		return "typescript"
	case "js", "jsx", "mjs", "cjs":
		return "javascript"
	case "java":
		return "java"
	case "rs":
		return "rust"
	case "rb":
		return "ruby"
	case "md", "markdown":
		return "markdown"
	}
	return "unknown"
}

// ErrorOf unwraps err into a tool Error (internal unless it is one).
func ErrorOf(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: CodeInternal, Message: err.Error()}
}
