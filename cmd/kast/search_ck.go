package main

import (
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/search"
	"github.com/kast-dev/kast/storage/scan"
)

// ckFlags are ck's CLI flags beyond grep's, with ck's meanings: output
// shape, which files a search walks, and index management mapped onto
// kast's search index.
type ckFlags struct {
	withFilename, noFilename, quiet, scores   bool
	jsonV1, noSnippet, recursive              bool
	limit                                     int
	noIgnore, noCkignore, hidden, noDefaultEx bool
	printCkignore, fullSection, multiline     bool
	rerank                                    bool
	rerankModel                               string

	index, status, statusVerbose, statusJSON bool
	clean, cleanOrphans, force               bool
	add, inspect, dumpChunks, switchModel    string

	showFilename bool // resolved from the flags and the targets
}

func (c *ckFlags) register(cmd *cobra.Command, f *searchFlags) {
	fl := cmd.Flags()
	fl.BoolVarP(&c.withFilename, "with-filename", "H", false, "print the file name of each match (the default unless one file is searched)")
	fl.BoolVar(&c.noFilename, "no-filename", false, "do not print file names")
	fl.BoolVarP(&c.quiet, "quiet", "q", false, "no progress output (as ck: not grep's silent mode)")
	fl.BoolVar(&c.scores, "scores", false, "print the score of each --lex, --sem or --hybrid result")
	fl.BoolVar(&c.jsonV1, "json-v1", false, "print one JSON object per line in ck's first shape: file, line, content, score")
	fl.BoolVar(&c.noSnippet, "no-snippet", false, "leave the code out of results (with --json, --jsonl: no snippet field)")
	fl.IntVar(&c.limit, "limit", 0, "at most N results, any mode (for --lex, --sem, --hybrid: as --topk)")
	fl.BoolVarP(&c.recursive, "recursive", "r", true, "search directories recursively (always; accepted as ck and grep have it)")
	fl.BoolP("dereference-recursive", "R", false, "as -r")
	fl.BoolVar(&c.noIgnore, "no-ignore", false, "search files .gitignore and .ignore exclude")
	fl.BoolVar(&c.noCkignore, "no-ckignore", false, "do not apply .ckignore files (nor the default .ckignore)")
	fl.BoolVar(&c.hidden, "hidden", false, "search hidden files and directories")
	fl.BoolVar(&c.noDefaultEx, "no-default-excludes", false, "enter the directories ck skips by default (node_modules, target, build, venv, ...)")
	fl.BoolVar(&c.printCkignore, "print-default-ckignore", false, "print the default .ckignore and exit")
	fl.BoolVar(&c.fullSection, "full-section", false, "print the whole function, method or type around each regex match")
	fl.BoolVarP(&c.multiline, "multiline", "U", false, "let matches span lines")
	fl.BoolVar(&c.rerank, "rerank", false, "rerank --lex and --sem results by how much of the query each holds (--hybrid always reranks its fused results)")
	fl.StringVar(&c.rerankModel, "rerank-model", search.RerankModel, "reranker (kast has one: "+search.RerankModel+")")
	fl.StringVar(&f.embed.model, "model", os.Getenv("KAST_EMBED_MODEL"), "embedding model (as --embed-model)")
	fl.BoolVar(&c.index, "index", false, "build or update the search index of PATH and exit")
	fl.BoolVar(&c.status, "status", false, "print the search index's status and exit")
	fl.BoolVar(&c.statusVerbose, "status-verbose", false, "print the search index's status in detail and exit")
	fl.BoolVar(&c.statusJSON, "status-json", false, "print the search index's status as JSON and exit")
	fl.BoolVar(&c.clean, "clean", false, "delete the search index and exit")
	fl.BoolVar(&c.cleanOrphans, "clean-orphans", false, "drop files that no longer exist from the index and exit")
	fl.BoolVar(&c.force, "force", false, "with --index or --switch-model: rebuild everything")
	fl.StringVar(&c.add, "add", "", "index one file (the index is brought up to date incrementally) and exit")
	fl.StringVar(&c.inspect, "inspect", "", "print a file's chunks as the index holds them and exit")
	fl.StringVar(&c.dumpChunks, "dump-chunks", "", "print a file's chunks with their text and exit")
	fl.StringVar(&c.switchModel, "switch-model", "", "re-embed the index with another embedding model (learned, hashed, or a model of --embedder ollama/openai) and exit")
}

// filter is the walk the flags ask for: ck's defaults, loosened by flag.
func (c *ckFlags) filter() search.Filter {
	f := search.CkFilter()
	f.NoIgnore = c.noIgnore
	f.SkipHidden = !c.hidden
	f.Ckignore = !c.noCkignore
	if c.noDefaultEx {
		f.Excludes = []string{}
	}
	return f
}

// showFilename: -H and --no-filename decide; otherwise names are printed
// unless the one target is a file, as grep does.
func showFilename(f *searchFlags, targets []string) bool {
	switch {
	case f.ck.withFilename:
		return true
	case f.ck.noFilename:
		return false
	}
	if len(targets) == 1 {
		if fi, err := os.Stat(targets[0]); err == nil && !fi.IsDir() {
			return false
		}
	}
	return true
}

// runIndexCommand runs the index management flags; done says one ran.
func runIndexCommand(cmd *cobra.Command, g *globalFlags, f *searchFlags, args []string) (done bool, err error) {
	c := &f.ck
	out := cmd.OutOrStdout()
	if c.printCkignore {
		_, err := io.WriteString(out, search.DefaultCkignore)
		return true, err
	}
	file := c.add + c.inspect + c.dumpChunks
	if !(c.index || c.status || c.statusVerbose || c.statusJSON || c.clean || c.cleanOrphans || file != "" || c.switchModel != "") {
		return false, nil
	}
	target := "."
	switch {
	case file != "":
		target = file
	case len(args) > 0:
		target = args[len(args)-1]
	}
	root, err := searchRoot(f.root, target)
	if err != nil {
		return true, err
	}
	switch c.switchModel {
	case "":
	case "learned", "hashed": // the built-in embedders
		f.embed.provider = c.switchModel
	default:
		if f.embed.provider != "ollama" && f.embed.provider != "openai" {
			return true, fmt.Errorf("--switch-model %s: a model name needs --embedder ollama or openai (the built-in ones are learned and hashed)", c.switchModel)
		}
		f.embed.model = c.switchModel
	}
	logger, err := newLogger(g.logLevel)
	if err != nil {
		return true, err
	}
	h, err := newHost(cmd.Context(), logger, &f.embed)
	if err != nil {
		return true, err
	}
	defer h.Close()
	eng, err := h.Search(root)
	if err != nil {
		return true, err
	}
	switch {
	case c.clean:
		if err := eng.Clean(); err != nil {
			return true, err
		}
		fmt.Fprintf(out, "removed the search index of %s\n", display(root))
	case c.status || c.statusVerbose || c.statusJSON:
		st, err := eng.Status()
		if err != nil {
			return true, err
		}
		return true, printStatus(out, st, c)
	case c.inspect != "" || c.dumpChunks != "":
		abs, _ := filepath.Abs(file)
		if _, err := eng.Refresh(cmd.Context(), false, nil); err != nil {
			return true, err
		}
		chunks, ok, err := eng.FileChunks(abs)
		if err != nil {
			return true, err
		}
		if !ok {
			return true, fmt.Errorf("%s is not in the search index (ignored, binary or over the index's size limit)", file)
		}
		return true, printChunks(out, abs, chunks, c.dumpChunks != "")
	default: // --index, --add, --clean-orphans, --switch-model: an incremental refresh does each
		rep, err := eng.Refresh(cmd.Context(), c.force, nil)
		if err != nil {
			return true, err
		}
		fmt.Fprintf(out, "%d files: %d indexed, %d removed, %d chunks (%d embedded) in %v\n",
			rep.Files, rep.Indexed, rep.Removed, rep.Chunks, rep.Embedded, rep.Duration.Round(1e6))
		if s := rep.Skipped; s != (scan.Skipped{}) {
			fmt.Fprintf(out, "skipped: %d over the index's %d MiB file limit (searched by scanning), %d binary, %d unreadable\n",
				s.TooLarge, scan.DefaultMaxFileSize>>20, s.Binary, s.Unreadable)
		}
	}
	return true, nil
}

func printStatus(w io.Writer, st search.Status, c *ckFlags) error {
	if c.statusJSON {
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(st)
	}
	if !st.Indexed {
		fmt.Fprintf(w, "%s: not indexed\n", display(st.Root))
		return nil
	}
	fmt.Fprintf(w, "%s: %d files, %d chunks, last updated %s\n", display(st.Root), st.Files, st.Chunks, st.Updated.Format("2006-01-02 15:04:05"))
	if c.statusVerbose {
		fmt.Fprintf(w, "embedding model: %s (%d dimensions), %d chunks embedded\n", st.Model, st.Dim, st.Embedded)
		fmt.Fprintf(w, "index: %d bytes for %d bytes of source, %d segments\n", st.IndexBytes, st.SourceBytes, st.Segments)
	}
	return nil
}

func printChunks(w io.Writer, path string, chunks []search.Chunk, withText bool) error {
	var src []byte
	if withText {
		var err error
		if src, err = os.ReadFile(path); err != nil {
			return err
		}
	}
	for i, c := range chunks {
		fmt.Fprintf(w, "%d: %s %s lines %d-%d bytes %d-%d\n", i, c.Kind, c.Name, c.StartLine, c.EndLine, c.Start, c.End)
		if withText && c.End <= len(src) {
			fmt.Fprintln(w, strings.TrimRight(string(src[c.Start:c.End]), "\n"))
		}
	}
	return nil
}

// reportSkips says on stderr why paths were passed over, as grep warns;
// binary files are only counted.
func reportSkips(w io.Writer, res *search.RegexResult, logger *slog.Logger) {
	for _, s := range res.Skipped {
		fmt.Fprintf(w, "kast: %s: %s\n", display(s.Path), s.Reason)
	}
	if res.Binary > 0 {
		logger.Debug("search: binary files skipped", "count", res.Binary)
	}
}

// printSections prints the function, method or type around each match
// once (ck --full-section); a match outside any chunk prints its line.
func printSections(w io.Writer, eng *search.Engine, res *search.RegexResult, f *searchFlags) (bool, error) {
	type key struct {
		path       string
		start, end int
	}
	seen := map[key]bool{}
	srcs := map[string][]byte{}
	for _, l := range res.Lines {
		c, ok, err := eng.Section(l.Path, l.Line)
		if err != nil {
			return false, err
		}
		if !ok {
			fmt.Fprintf(w, "%s:%d:%s\n", display(l.Path), l.Line, l.Text)
			continue
		}
		k := key{l.Path, c.Start, c.End}
		if seen[k] {
			continue
		}
		seen[k] = true
		src, ok := srcs[l.Path]
		if !ok {
			src, _ = os.ReadFile(l.Path)
			srcs[l.Path] = src
		}
		if c.End > len(src) {
			continue
		}
		fmt.Fprintf(w, "%s:%d-%d %s %s\n%s\n", display(l.Path), c.StartLine, c.EndLine, c.Kind, c.Name, strings.TrimRight(string(src[c.Start:c.End]), "\n"))
	}
	return len(res.Lines) > 0, nil
}

// printJSONV1 writes ck's first JSON shape, one object a line.
func printJSONV1(enc *json.Encoder, items []jsonMatch) error {
	for _, it := range items {
		v := map[string]any{"file": it.Path, "line": it.Span.LineStart}
		if it.Snippet != nil {
			v["content"] = *it.Snippet
		}
		if it.Score != nil {
			v["score"] = *it.Score
		}
		if err := enc.Encode(v); err != nil {
			return err
		}
	}
	return nil
}
