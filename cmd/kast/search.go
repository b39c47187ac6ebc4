package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/storage"
)

// embedFlags choose the embedder for semantic and hybrid search.
type embedFlags struct {
	provider string // learned, hashed, ollama or openai
	url      string
	model    string
}

// embedFromEnv is the embedder the environment configures, for commands
// without the flags.
func embedFromEnv() *embedFlags {
	return &embedFlags{provider: cmp.Or(os.Getenv("KAST_EMBEDDER"), defaultEmbedder), url: os.Getenv("KAST_EMBED_URL"), model: os.Getenv("KAST_EMBED_MODEL")}
}

func (f *embedFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.provider, "embedder", cmp.Or(os.Getenv("KAST_EMBEDDER"), defaultEmbedder),
		"embedder for --sem/--hybrid: learned (built in, offline: word vectors learned from the workspace), hashed (built in, lexical similarity only), ollama or openai")
	cmd.Flags().StringVar(&f.url, "embed-url", os.Getenv("KAST_EMBED_URL"), "embedding service base URL (default http://127.0.0.1:11434 for ollama, https://api.openai.com for openai)")
	cmd.Flags().StringVar(&f.model, "embed-model", os.Getenv("KAST_EMBED_MODEL"), "embedding model name (default nomic-embed-text for ollama, text-embedding-3-small for openai)")
}

// defaultEmbedder is the built-in learned model: offline, and it knows
// which words of the workspace mean alike.
const defaultEmbedder = "learned"

// embedder builds the chosen embedder; an HTTP one is probed for its dimension.
// The API key comes from KAST_EMBED_API_KEY, never a flag (shell history).
func (f *embedFlags) embedder(ctx context.Context) (search.Embedder, error) {
	switch f.provider {
	case "", "learned":
		return search.NewLearned(), nil
	case "hashed":
		return search.NewHashed(), nil
	case "ollama", "openai":
		e := &search.HTTPEmbedder{Kind: f.provider, BaseURL: f.url, Name: f.model, APIKey: os.Getenv("KAST_EMBED_API_KEY")}
		if f.provider == "ollama" {
			e.BaseURL, e.Name = cmp.Or(e.BaseURL, "http://127.0.0.1:11434"), cmp.Or(e.Name, "nomic-embed-text")
		} else {
			e.BaseURL, e.Name = cmp.Or(e.BaseURL, "https://api.openai.com"), cmp.Or(e.Name, "text-embedding-3-small")
		}
		return e, e.Probe(ctx)
	}
	return nil, fmt.Errorf("unknown --embedder %q: want learned, hashed, ollama or openai", f.provider)
}

type searchFlags struct {
	lineNumbers, ignoreCase, wholeWord, fixed bool
	filesWith, filesWithout                   bool
	context, after, before                    int
	regex, lex, sem, hybrid                   bool
	topK                                      int
	threshold                                 float64
	asJSON, asJSONL, reindex                  bool
	root                                      string
	include, exclude                          []string
	embed                                     embedFlags
	ck                                        ckFlags
}

func newSearchCmd(g *globalFlags, exit *int) *cobra.Command {
	var f searchFlags
	cmd := &cobra.Command{
		Use:   "search PATTERN [PATH]",
		Short: "Search code: regex (default, grep-like), lexical BM25, semantic or hybrid",
		Long: `Search the files under PATH (default: the current directory) of the workspace that
contains it (the nearest folder with .git, go.mod, package.json or another project
marker; --root chooses another). .gitignore and the default excludes
apply. The search index is brought up to date first; only changed files are read.

--regex (default) is grep-like, narrowed by a trigram index; --lex ranks chunks
(functions, methods, types, blocks) by BM25 over identifier parts; --sem by vector
similarity; --hybrid fuses the two by reciprocal rank. The built-in embedder
(--embedder learned) is offline: it learns word vectors from the workspace's own
code, comments and docs, so a query finds code that says the same in other words;
--embedder ollama or openai uses an embedding service instead. Exit status 1
means nothing matched.`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if done, err := runIndexCommand(cmd, g, &f, args); done {
				return err
			}
			if len(args) == 0 {
				return errors.New("search needs a PATTERN (or an index flag such as --index or --status)")
			}
			if m := f.ck.rerankModel; m != search.RerankModel {
				// ck's rerankers are downloaded cross-encoders; none exists
				// offline, and answering with another under their name would lie.
				return fmt.Errorf("--rerank-model %q: kast has one reranker, %s (ck's cross-encoders need downloaded weights)", m, search.RerankModel)
			}
			found, err := runSearch(cmd, g, &f, args)
			if err == nil && !found {
				*exit = 1
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.BoolVarP(&f.lineNumbers, "line-number", "n", false, "print line numbers")
	fl.BoolVarP(&f.ignoreCase, "ignore-case", "i", false, "match case-insensitively")
	fl.BoolVarP(&f.wholeWord, "word-regexp", "w", false, "match whole words only")
	fl.BoolVarP(&f.fixed, "fixed-strings", "F", false, "treat PATTERN as a literal string")
	fl.BoolVarP(&f.filesWith, "files-with-matches", "l", false, "print only the names of files with a match")
	fl.BoolVarP(&f.filesWithout, "files-without-match", "L", false, "print only the names of files without a match")
	fl.IntVarP(&f.context, "context", "C", 0, "lines of context around each match")
	fl.IntVarP(&f.after, "after-context", "A", 0, "lines of context after each match")
	fl.IntVarP(&f.before, "before-context", "B", 0, "lines of context before each match")
	fl.BoolVar(&f.regex, "regex", false, "regular-expression search (the default)")
	fl.BoolVar(&f.lex, "lex", false, "lexical search: BM25 over identifier-split terms")
	fl.BoolVar(&f.sem, "sem", false, "semantic search by embedding similarity")
	fl.BoolVar(&f.hybrid, "hybrid", false, "semantic and lexical rankings fused (RRF, k=60)")
	fl.IntVar(&f.topK, "topk", 10, "maximum results for --lex, --sem and --hybrid")
	fl.Float64Var(&f.threshold, "threshold", -1, "minimum score (default: the embedder's for --sem, 0 otherwise)")
	fl.BoolVar(&f.asJSON, "json", false, "print a JSON array")
	fl.BoolVar(&f.asJSONL, "jsonl", false, "print one JSON object per line")
	fl.StringVar(&f.root, "root", "", "workspace root (default: the nearest folder around PATH with .git, go.mod, package.json or another project marker)")
	fl.BoolVar(&f.reindex, "reindex", false, "rebuild the search index first")
	fl.StringSliceVar(&f.include, "include", nil, "only files matching these globs (path or base name)")
	fl.StringSliceVar(&f.exclude, "exclude", nil, "skip files or directories matching these globs")
	f.embed.register(cmd)
	f.ck.register(cmd, &f)
	cmd.MarkFlagsMutuallyExclusive("regex", "lex", "sem", "hybrid")
	cmd.MarkFlagsMutuallyExclusive("files-with-matches", "files-without-match")
	cmd.MarkFlagsMutuallyExclusive("json", "jsonl", "json-v1")
	cmd.MarkFlagsMutuallyExclusive("with-filename", "no-filename")
	return cmd
}

// runSearch reports whether anything matched.
func runSearch(cmd *cobra.Command, g *globalFlags, f *searchFlags, args []string) (bool, error) {
	logger, err := newLogger(g.logLevel)
	if err != nil {
		return false, err
	}
	targets := args[1:]
	if len(targets) == 0 {
		targets = []string{"."}
	}
	target := targets[0]
	root, err := searchRoot(f.root, target)
	if err != nil {
		return false, err
	}
	var absTargets []string
	for _, t := range targets {
		abs, err := filepath.Abs(t)
		if err != nil {
			return false, err
		}
		if _, err := os.Stat(abs); err != nil {
			return false, err
		}
		absTargets = append(absTargets, abs)
	}
	f.ck.showFilename = showFilename(f, absTargets)
	scope := search.Scope{Paths: absTargets, Include: f.include, Exclude: f.exclude, Filter: f.ck.filter()}
	before, after := max(f.before, f.context), max(f.after, f.context)
	rq := search.RegexQuery{Pattern: args[0], IgnoreCase: f.ignoreCase, WholeWord: f.wholeWord,
		Fixed: f.fixed, Multiline: f.ck.multiline, Before: before, After: after, Scope: scope}
	if !(f.lex || f.sem || f.hybrid || f.reindex || f.ck.fullSection) {
		if _, err := rq.Compile(); err != nil {
			return false, err // said the same here as by a daemon
		}
		if res, ok := regexViaDaemon(root, rq, f.filesWithout, logger); ok {
			return printRegex(cmd, res, f, logger)
		}
	}
	ctx := cmd.Context()
	h, err := newHost(ctx, logger, &f.embed)
	if err != nil {
		return false, err
	}
	defer h.Close()
	eng, err := h.Search(root)
	if err != nil {
		return false, err
	}
	var bar *progressbar.ProgressBar
	if !f.ck.quiet {
		bar = newBar(cmd.ErrOrStderr())
	}
	rep, err := eng.Refresh(ctx, f.reindex, func(p search.Progress) {
		if bar != nil && p.Stage == "index" && p.Total > 0 {
			bar.ChangeMax64(p.Total)
			_ = bar.Set64(p.Done)
		}
	})
	if bar != nil {
		_ = bar.Finish()
	}
	if err != nil {
		return false, err
	}
	// Indexing and search time are reported apart: a slow first search is
	// the index being built, not the query.
	searchStart := time.Now()
	defer func() {
		logger.Debug("search", "indexing", rep.Duration, "filesIndexed", rep.Indexed, "search", time.Since(searchStart))
	}()
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	pattern := args[0]
	if f.lex || f.sem || f.hybrid {
		q := search.RankedQuery{Query: pattern, TopK: f.topK, Threshold: f.threshold, Scope: scope, Rerank: f.ck.rerank}
		if f.ck.limit > 0 {
			q.TopK = f.ck.limit
		}
		var hits []search.Hit
		switch {
		case f.lex:
			q.Threshold = max(q.Threshold, 0)
			hits, err = eng.Lexical(ctx, q)
		case f.sem:
			hits, err = eng.Semantic(ctx, q)
		default:
			q.Threshold = max(q.Threshold, 0)
			hits, err = eng.Hybrid(ctx, q)
		}
		if err != nil {
			return false, err
		}
		if f.ck.limit > 0 {
			hits = hits[:min(len(hits), f.ck.limit)]
		}
		return len(hits) > 0, printHits(out, hits, f)
	}
	res, err := eng.Regex(ctx, rq)
	if err != nil {
		return false, err
	}
	if f.ck.fullSection {
		reportSkips(cmd.ErrOrStderr(), res, logger)
		res.Lines = res.Lines[:limitLines(len(res.Lines), f)]
		return printSections(out, eng, res, f)
	}
	return printRegex(cmd, res, f, logger)
}

// printRegex prints a regex search's answer, the daemon's or this
// process's alike.
func printRegex(cmd *cobra.Command, res *search.RegexResult, f *searchFlags, logger *slog.Logger) (bool, error) {
	reportSkips(cmd.ErrOrStderr(), res, logger)
	res.Lines = res.Lines[:limitLines(len(res.Lines), f)]
	out := bufio.NewWriter(cmd.OutOrStdout())
	defer out.Flush()
	return printLines(out, res, f)
}

func limitLines(n int, f *searchFlags) int {
	if f.ck.limit > 0 {
		return min(n, f.ck.limit)
	}
	return n
}

// searchRoot is the workspace a search works in: workspaceRoot's, unless a
// folder above it already has an index (a subfolder with a project marker of
// its own inside an indexed repository): that index is reused, the search
// scoped to the subfolder, rather than a second index built of its files.
func searchRoot(flag, target string) (string, error) {
	root, err := workspaceRoot(flag, target)
	if err != nil || flag != "" {
		return root, err
	}
	for p := filepath.Dir(root); p != filepath.Dir(p); p = filepath.Dir(p) {
		dir, err := storage.DefaultDir(p)
		if err != nil {
			break
		}
		if _, err := storage.ReadDescriptor(dir); err == nil {
			return p, nil
		}
	}
	return root, nil
}

type jsonSpan struct {
	ByteStart int `json:"byte_start"`
	ByteEnd   int `json:"byte_end"`
	LineStart int `json:"line_start"`
	LineEnd   int `json:"line_end"`
}

// jsonMatch is one result in ck's JSONL shape.
type jsonMatch struct {
	Path    string   `json:"path"`
	Span    jsonSpan `json:"span"`
	Kind    string   `json:"kind,omitempty"`
	Name    string   `json:"name,omitempty"`
	Snippet *string  `json:"snippet,omitempty"`
	Score   *float64 `json:"score,omitempty"`
}

func hitJSON(h search.Hit) jsonMatch {
	s := h.Score
	return jsonMatch{Path: display(h.Path), Span: jsonSpan{h.Chunk.Start, h.Chunk.End, h.Chunk.StartLine, h.Chunk.EndLine},
		Kind: h.Chunk.Kind, Name: h.Chunk.Name, Snippet: &h.Text, Score: &s}
}

func lineJSON(l search.LineMatch) jsonMatch {
	return jsonMatch{Path: display(l.Path), Span: jsonSpan{l.Offset, l.Offset + len(l.Text), l.Line, l.Line}, Snippet: &l.Text}
}

func printJSON(w io.Writer, items []jsonMatch, f *searchFlags) error {
	enc := json.NewEncoder(w)
	for i := range items {
		if f.ck.noSnippet {
			items[i].Snippet = nil
		}
	}
	if f.ck.jsonV1 {
		return printJSONV1(enc, items)
	}
	if f.asJSONL {
		for _, it := range items {
			if err := enc.Encode(it); err != nil {
				return err
			}
		}
		return nil
	}
	if items == nil {
		items = []jsonMatch{}
	}
	return enc.Encode(items)
}

func printHits(w io.Writer, hits []search.Hit, f *searchFlags) error {
	if f.asJSON || f.asJSONL || f.ck.jsonV1 {
		var items []jsonMatch
		for _, h := range hits {
			items = append(items, hitJSON(h))
		}
		return printJSON(w, items, f)
	}
	if f.filesWith {
		seen := map[string]bool{}
		for _, h := range hits {
			if !seen[h.Path] {
				seen[h.Path] = true
				fmt.Fprintln(w, display(h.Path))
			}
		}
		return nil
	}
	for i, h := range hits {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s:%d-%d", display(h.Path), h.Chunk.StartLine, h.Chunk.EndLine)
		if f.ck.scores {
			fmt.Fprintf(w, " (%.4f)", h.Score)
		}
		if h.Chunk.Name != "" {
			fmt.Fprintf(w, " %s %s", h.Chunk.Kind, h.Chunk.Name)
		}
		fmt.Fprintln(w)
		if !f.ck.noSnippet {
			fmt.Fprintln(w, strings.TrimRight(h.Text, "\n"))
		}
	}
	return nil
}

func printLines(w io.Writer, res *search.RegexResult, f *searchFlags) (bool, error) {
	switch {
	case f.filesWithout:
		with := map[string]bool{}
		for _, p := range res.Files {
			with[p] = true
		}
		any := false
		for _, p := range res.Searched {
			if !with[p] {
				any = true
				fmt.Fprintln(w, display(p))
			}
		}
		return any, nil
	case f.filesWith:
		for _, p := range res.Files {
			fmt.Fprintln(w, display(p))
		}
		return len(res.Files) > 0, nil
	case f.asJSON || f.asJSONL || f.ck.jsonV1:
		var items []jsonMatch
		for _, l := range res.Lines {
			items = append(items, lineJSON(l))
		}
		return len(items) > 0, printJSON(w, items, f)
	}
	// grep's layout: "path:line:text" for matches, "path-line-text" for
	// context, "--" between groups that are not adjacent.
	lastPath, lastLine := "", 0
	withContext := f.context+f.before+f.after > 0
	emit := func(path string, n int, sep, text string) {
		if path == lastPath && n <= lastLine {
			return // already printed as context of the previous match
		}
		if withContext && lastPath != "" && (path != lastPath || n > lastLine+1) {
			fmt.Fprintln(w, "--")
		}
		prefix := ""
		if f.ck.showFilename {
			prefix = display(path) + sep
		}
		if f.lineNumbers {
			prefix += fmt.Sprint(n) + sep
		}
		fmt.Fprintf(w, "%s%s\n", prefix, text)
		lastPath, lastLine = path, n
	}
	for _, l := range res.Lines {
		for _, c := range l.Before {
			emit(l.Path, c.Number, "-", c.Text)
		}
		emit(l.Path, l.Line, ":", l.Text)
		for _, c := range l.After {
			emit(l.Path, c.Number, "-", c.Text)
		}
	}
	return len(res.Lines) > 0, nil
}
