package main

// The retrieval benchmark, in the style of CodeSearchNet: from a real
// corpus, every documented function (outside tests, with a name unique in
// its file) gives a query, the first sentence of its doc comment. The whole
// doc comment is removed from the indexed copy of the corpus, so no arm can
// find the function by its own documentation; the answer is the function's
// chunk. Each mode ranks the top 10 and scores MRR@10 and recall@10.
//
//	kastbench -retrieval -lang go|python -root DIR[,DIR...] [-queries 400]

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/storage"
)

// retrievalQuery asks for the function name in file.
type retrievalQuery struct {
	file  string // relative to the corpus copy
	name  string // the chunk breadcrumb's last part
	query string
}

func runRetrieval(lang, roots string, limit int) error {
	dir, err := os.MkdirTemp("", "kast-retrieval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	var queries []retrievalQuery
	var files int
	for i, root := range strings.Split(roots, ",") {
		qs, n, err := copyCorpus(lang, root, filepath.Join(dir, fmt.Sprintf("%d-%s", i, filepath.Base(root))), dir)
		if err != nil {
			return err
		}
		queries, files = append(queries, qs...), files+n
	}
	if len(queries) == 0 {
		return fmt.Errorf("no documented %s functions under %s", lang, roots)
	}
	if limit > 0 && len(queries) > limit { // an even, deterministic sample
		step := float64(len(queries)) / float64(limit)
		var sample []retrievalQuery
		for i := range limit {
			sample = append(sample, queries[int(float64(i)*step)])
		}
		queries = sample
	}
	fmt.Printf("retrieval (%s): %d queries over %d files from %s\n", lang, len(queries), files, roots)
	ctx := context.Background()
	hashed, _, err := retrievalEngine(ctx, dir, search.NewHashed())
	if err != nil {
		return err
	}
	learned, rep, err := retrievalEngine(ctx, dir, search.NewLearned())
	if err != nil {
		return err
	}
	fmt.Printf("learned model: %s, %d chunks, indexed and trained in %v\n",
		learned.Embedder().Model(), rep.Chunks, rep.Duration.Round(time.Millisecond))
	type mode struct {
		name string
		run  func(context.Context, search.RankedQuery) ([]search.Hit, error)
	}
	modes := []mode{
		{"lexical (BM25)", hashed.Lexical},
		{"semantic (hashed)", hashed.Semantic},
		{"hybrid (hashed)", hashed.Hybrid},
		{"semantic (learned)", learned.Semantic},
		{"hybrid (learned)", learned.Hybrid},
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, "mode\tMRR@10\trecall@10\trecall@1\tms/query\t")
	recall := map[string]float64{}
	mrr := map[string]float64{}
	for _, m := range modes {
		var rr, hit10, hit1 float64
		start := time.Now()
		for _, q := range queries {
			hits, err := m.run(ctx, search.RankedQuery{Query: q.query, TopK: 10, Threshold: 1e-9})
			if err != nil {
				return fmt.Errorf("%s: %w", m.name, err)
			}
			if rank := answerRank(dir, q, hits); rank > 0 {
				rr += 1 / float64(rank)
				hit10++
				if rank == 1 {
					hit1++
				}
			}
		}
		n := float64(len(queries))
		recall[m.name], mrr[m.name] = hit10/n, rr/n
		ms := float64(time.Since(start).Microseconds()) / 1000 / n
		fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%.3f\t%.1f\t\n", m.name, rr/n, hit10/n, hit1/n, ms)
	}
	w.Flush()
	lex := "lexical (BM25)"
	fmt.Printf("targets: learned semantic ≥ BM25 (MRR %.3f vs %.3f, recall@10 %.3f vs %.3f): %s; hybrid recall@10 ≥ 1.2× BM25's: %.2f× %s\n",
		mrr["semantic (learned)"], mrr[lex], recall["semantic (learned)"], recall[lex],
		verdict(mrr["semantic (learned)"] >= mrr[lex] && recall["semantic (learned)"] >= recall[lex]),
		recall["hybrid (learned)"]/max(recall[lex], 1e-9), verdict(recall["hybrid (learned)"] >= 1.2*recall[lex]))
	return nil
}

func retrievalEngine(ctx context.Context, dir string, emb search.Embedder) (*search.Engine, search.IndexReport, error) {
	ix, err := storage.Open(dir, storage.Options{InMemory: true})
	if err != nil {
		return nil, search.IndexReport{}, err
	}
	e, err := search.Open(dir, ix, search.Options{Embedder: emb})
	if err != nil {
		return nil, search.IndexReport{}, err
	}
	rep, err := e.Refresh(ctx, false, nil)
	return e, rep, err
}

// answerRank is the 1-based rank of the query's function among hits, 0
// when absent. A function cut into several windows is found by any.
func answerRank(dir string, q retrievalQuery, hits []search.Hit) int {
	want := filepath.Join(dir, q.file)
	for i, h := range hits {
		name := h.Chunk.Name[strings.LastIndex(h.Chunk.Name, ".")+1:]
		if h.Path == want && name == q.name && (h.Chunk.Kind == "function" || h.Chunk.Kind == "method") {
			return i + 1
		}
	}
	return 0
}

// copyCorpus copies the language's files under root into dest with the doc
// comments of the functions that give queries removed.
func copyCorpus(lang, root, dest, base string) ([]retrievalQuery, int, error) {
	ext := map[string]string{"go": ".go", "python": ".py"}[lang]
	if ext == "" {
		return nil, 0, fmt.Errorf("-lang %q: want go or python", lang)
	}
	var queries []retrievalQuery
	files := 0
	err := filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return nil // unreadable: left out
		}
		if d.IsDir() {
			if n := d.Name(); path != root && (strings.HasPrefix(n, ".") || n == "testdata" || n == "vendor" || n == "node_modules") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ext) || !d.Type().IsRegular() {
			return nil
		}
		src, err := os.ReadFile(path)
		if err != nil || len(src) > 1<<20 {
			return nil
		}
		rel, _ := filepath.Rel(root, path)
		out := filepath.Join(dest, rel)
		relOut, _ := filepath.Rel(base, out)
		var docs []docSpan
		if !isTestFile(lang, rel) {
			docs = findDocs(lang, string(src))
		}
		text := string(src)
		for i := len(docs) - 1; i >= 0; i-- { // from the end, so spans stay valid
			d := docs[i]
			text = text[:d.start] + text[d.end:]
			queries = append(queries, retrievalQuery{file: relOut, name: d.name, query: d.sentence})
		}
		files++
		if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
			return err
		}
		return os.WriteFile(out, []byte(text), 0o644)
	})
	slices.SortFunc(queries, func(a, b retrievalQuery) int {
		return strings.Compare(a.file+"\x00"+a.name, b.file+"\x00"+b.name)
	})
	return queries, files, err
}

func isTestFile(lang, rel string) bool {
	base := filepath.Base(rel)
	if lang == "go" {
		return strings.HasSuffix(base, "_test.go")
	}
	return strings.HasPrefix(base, "test_") || strings.HasSuffix(base, "_test.py") ||
		slices.Contains(strings.Split(filepath.ToSlash(rel), "/"), "tests")
}

// docSpan is a documented function's doc comment: the byte span removed
// and the query made of its first sentence.
type docSpan struct {
	start, end int
	name       string
	sentence   string
}

var (
	goFunc   = regexp.MustCompile(`(?m)^func (?:\([^)]*\) )?([A-Za-z_]\w*)\s*[\[(]`)
	pyDef    = regexp.MustCompile(`(?m)^[ \t]*(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)[ \t]*\(`)
	sentence = regexp.MustCompile(`^(.*?[.!?])(?:\s|$)`)
)

// findDocs finds the documented functions whose name is unique in the file.
func findDocs(lang, src string) []docSpan {
	re := goFunc
	if lang == "python" {
		re = pyDef
	}
	seen := map[string]int{}
	ms := re.FindAllStringSubmatchIndex(src, -1)
	for _, m := range ms {
		seen[src[m[2]:m[3]]]++
	}
	var out []docSpan
	for _, m := range ms {
		name := src[m[2]:m[3]]
		if seen[name] > 1 {
			continue
		}
		var d docSpan
		var doc string
		if lang == "go" {
			d.start, d.end, doc = goDoc(src, m[0])
		} else {
			d.start, d.end, doc = pyDoc(src, m[1])
		}
		d.name, d.sentence = name, firstSentence(doc)
		if d.end > d.start && len(strings.Fields(d.sentence)) >= 3 && !strings.HasPrefix(d.sentence, "Deprecated") {
			out = append(out, d)
		}
	}
	return out
}

// goDoc returns the // comment lines directly above the func at offset.
func goDoc(src string, funcStart int) (int, int, string) {
	start := funcStart
	var lines []string
	for start > 0 {
		prev := strings.LastIndexByte(src[:start-1], '\n') + 1
		line := strings.TrimSpace(src[prev : start-1])
		if !strings.HasPrefix(line, "//") {
			break
		}
		if !strings.HasPrefix(line, "//go:") { // directives are not documentation
			lines = append([]string{strings.TrimSpace(strings.TrimPrefix(line, "//"))}, lines...)
		}
		start = prev
	}
	return start, funcStart, strings.Join(lines, " ")
}

// pyDoc returns the docstring that is the first statement of the def whose
// signature starts before offset.
func pyDoc(src string, sigStart int) (int, int, string) {
	depth := 0
	i := sigStart
	for ; i < len(src); i++ { // the end of the signature: ':' outside brackets
		switch src[i] {
		case '(', '[', '{':
			depth++
		case ')', ']', '}':
			depth--
		}
		if src[i] == ':' && depth <= 0 && i > sigStart {
			break
		}
	}
	nl := strings.IndexByte(src[i:], '\n')
	if nl < 0 {
		return 0, 0, ""
	}
	body := i + nl + 1
	rest := strings.TrimLeft(src[body:], " \t")
	rest = strings.TrimPrefix(strings.TrimPrefix(rest, "r"), "u")
	var quote string
	for _, q := range []string{`"""`, `'''`} {
		if strings.HasPrefix(rest, q) {
			quote = q
		}
	}
	if quote == "" {
		return 0, 0, ""
	}
	open := len(src) - len(rest) + len(quote)
	end := strings.Index(src[open:], quote)
	if end < 0 {
		return 0, 0, ""
	}
	doc := src[open : open+end]
	stop := open + end + len(quote)
	if j := strings.IndexByte(src[stop:], '\n'); j >= 0 {
		stop += j + 1
	}
	return body, stop, doc
}

func firstSentence(doc string) string {
	doc = strings.Join(strings.Fields(doc), " ")
	if m := sentence.FindStringSubmatch(doc); m != nil {
		return m[1]
	}
	return doc
}

func verdict(ok bool) string {
	if ok {
		return "met"
	}
	return "NOT met"
}
