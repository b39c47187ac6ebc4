package main

// Definition and completion accuracy for Python against pyright and for
// TypeScript against typescript-language-server: -accuracy python|typescript
// runs kast lsp and the reference server on each root at the same sampled
// positions. A definition whose reference target lies in the workspace
// must land on the same file and line; one in a library (a virtualenv, the
// interpreter's standard library, node_modules, or the reference server's
// own bundled stubs) must name the same symbol of the same module, since
// pyright and tsserver answer into stubs they ship themselves. Member
// completions are asked one letter into the member after "x."; agreement is
// the share of the reference's first five items that are among kast's.
//
//	make refservers   (npm ci of the pinned servers into cmd/kastbench/refservers/node_modules)
//	kastbench -accuracy python -refserver cmd/kastbench/refservers/node_modules/.bin/pyright-langserver -root P1,P2
//	kastbench -accuracy typescript -refserver cmd/kastbench/refservers/node_modules/.bin/typescript-language-server -root P1,P2
//
// A Python root's .venv/bin leads PATH for the reference server, so pyright
// sees the virtualenv kast finds. KASTBENCH_EXPLAIN=1 prints every miss;
// KASTBENCH_REFCACHE=DIR keeps the reference server's answers for the next
// run on the same tree (refcache.go); KASTBENCH_CACHE=DIR is kast's cache
// folder, shared by runs, so that libraries are indexed once.

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/uri"

	"github.com/kast-dev/kast/analysis/benchpos"
)

// refLang is what differs between the languages -accuracy compares with a
// reference server.
type refLang struct {
	exts       []string
	languageID func(path string) string
	server     string // the reference server's name in the table
	// initOptions are the reference server's initializationOptions.
	initOptions any
}

var refLangs = map[string]refLang{
	"python": {exts: []string{".py"}, languageID: func(string) string { return "python" }, server: "pyright"},
	// While a project loads, typescript-language-server answers from a
	// syntax-only server that knows one file: a use of an imported name
	// then goes to its import line. The reference is the semantic answer.
	"typescript": {exts: []string{".ts", ".tsx"}, server: "tsserver",
		initOptions: map[string]any{"tsserver": map[string]any{"useSyntaxServer": "never"}}, languageID: func(p string) string {
			if strings.HasSuffix(p, ".tsx") {
				return "typescriptreact"
			}
			return "typescript"
		}},
}

func runRefAccuracy(language, kast, ref, roots string, n int) error {
	l, ok := refLangs[language]
	if !ok {
		return fmt.Errorf("-accuracy %s: not a language kastbench compares with a reference server", language)
	}
	if ref == "" {
		return fmt.Errorf("-accuracy %s needs -refserver (the %s language server binary; make refservers installs it)", language, l.server)
	}
	fmt.Printf("%-10s %-8s %-10s %6s %7s %9s %10s\n", "project", "server", "target", "refs", "hit@1", "coverage", "falseAns")
	for _, root := range strings.Split(roots, ",") {
		if err := refAccuracy(l, kast, ref, root, n); err != nil {
			return err
		}
	}
	return nil
}

func refAccuracy(l refLang, kast, ref, root string, n int) error {
	ctx := context.Background()
	root, _ = filepath.Abs(root)
	paths, _, err := treeFiles(root)
	if err != nil {
		return err
	}
	defSamples, err := benchpos.Refs(ctx, paths, n, l.exts)
	if err != nil {
		return err
	}
	memberSamples, err := benchpos.Members(ctx, paths, max(n/4, 1), l.exts)
	if err != nil {
		return err
	}
	k, libs, cleanup, err := startKastWithLibraries(ctx, root, kast)
	if err != nil {
		return err
	}
	defer cleanup()
	kastDefs := targets(ctx, k, l, defSamples)
	kastItems := completions(ctx, k, l, memberSamples)
	k.close()

	cacheFile := refCacheFile(os.Getenv("KASTBENCH_REFCACHE"), ref, root, defSamples, memberSamples)
	refDefs, refItems, cached := loadRefAnswers(cacheFile, len(defSamples), len(memberSamples))
	if !cached {
		if refDefs, refItems, err = refServerAnswers(ctx, l, ref, root, defSamples, memberSamples); err != nil {
			return err
		}
		saveRefAnswers(cacheFile, refDefs, refItems)
	}

	name := filepath.Base(root)
	explain := os.Getenv("KASTBENCH_EXPLAIN") != ""
	var ws, lib goTally
	falseAns, silent := 0, 0
	for i, smp := range defSamples {
		want, got := refDefs[i], kastDefs[i]
		if want.path == "" {
			silent++
			if got.path != "" {
				falseAns++
				if explain {
					fmt.Printf("  false %s: kast %s\n", smp, got)
				}
			}
			continue
		}
		t, hit := &lib, false
		if inWorkspace(root, want.path) {
			t, hit = &ws, got.path == want.path && got.line == want.line
		} else {
			hit = got.path != "" && !inWorkspace(root, got.path) && want.symbol(l) == got.symbol(l)
		}
		t.positions++
		if got.path != "" {
			t.answered++
		}
		if hit {
			t.hit++
		} else if explain {
			fmt.Printf("  miss %s: kast %s %s %s\n", smp, got, l.server, want)
		}
	}
	all := goTally{ws.positions + lib.positions, ws.hit + lib.hit, ws.answered + lib.answered}
	for _, row := range []struct {
		split string
		t     goTally
	}{{"workspace", ws}, {"library", lib}, {"all", all}} {
		fmt.Printf("%-10s %-8s %-10s %6d %6.1f%% %8.1f%% %10s\n", name, "kast", row.split, row.t.positions,
			pct(row.t.hit, row.t.positions), pct(row.t.answered, row.t.positions), "")
	}
	fmt.Printf("%-10s %-8s %-10s %6d %7s %9s %9.1f%%\n", name, "kast", "no-target", silent, "", "", pct(falseAns, silent))

	printMemberAgreement(name, l.server, memberSamples, kastItems, refItems, explain)
	fmt.Printf("%-10s libraries: %s\n", name, libs)
	return nil
}

// printMemberAgreement prints how many of the reference server's top five
// member completions kast's top five hold, and how often each list holds
// the member that the code names there.
func printMemberAgreement(name, server string, memberSamples []sample, kastItems, refItems [][]string, explain bool) {
	agree, asked, memberHit, refMemberHit := 0.0, 0, 0, 0
	for i, smp := range memberSamples {
		if slices.Contains(kastItems[i], smp.Name) {
			memberHit++
		}
		if slices.Contains(refItems[i], smp.Name) {
			refMemberHit++
		}
		if len(refItems[i]) == 0 {
			continue
		}
		asked++
		shared := 0
		for _, label := range refItems[i] {
			if slices.Contains(kastItems[i], label) {
				shared++
			}
		}
		agree += float64(shared) / float64(len(refItems[i]))
		if explain && shared < len(refItems[i]) {
			fmt.Printf("  completion %s: kast %v %s %v\n", smp, kastItems[i], server, refItems[i])
		}
	}
	fmt.Printf("%-10s member completion: top-5 agreement %.1f%% over %d positions %s completes; the member itself in the top 5: kast %.1f%%, %s %.1f%% of %d\n",
		name, 100*agree/float64(max(asked, 1)), asked, server, pct(memberHit, len(memberSamples)), server, pct(refMemberHit, len(memberSamples)), len(memberSamples))
}

// refServerAnswers runs the reference server on root and asks it at the
// samples.
func refServerAnswers(ctx context.Context, l refLang, ref, root string, defSamples, memberSamples []sample) ([]target, [][]string, error) {
	refEnv := os.Environ()
	if venvBin := filepath.Join(root, ".venv", "bin"); dirExists(venvBin) {
		refEnv = append(refEnv, "PATH="+venvBin+string(os.PathListSeparator)+os.Getenv("PATH"), "VIRTUAL_ENV="+filepath.Dir(venvBin))
	}
	r, err := startServerWith(ctx, l.server, root, refEnv, l.initOptions, ref, "--stdio")
	if err != nil {
		return nil, nil, err
	}
	defer r.close()
	if err := waitAnswers(ctx, r, l, defSamples); err != nil {
		return nil, nil, err
	}
	return targets(ctx, r, l, defSamples), completions(ctx, r, l, memberSamples), nil
}

// target is where a definition lands.
type target struct {
	path      string
	line, col int
}

func (t target) String() string {
	if t.path == "" {
		return "nothing"
	}
	return fmt.Sprintf("%s:%d:%d", t.path, t.line+1, t.col+1)
}

// symbol names a library target by module and name: the module from the
// path below the library's root, the name from the identifier at the
// target (past any declaration keywords).
func (t target) symbol(l refLang) string {
	src, err := os.ReadFile(t.path)
	if err != nil {
		return t.path
	}
	lines := strings.Split(string(src), "\n")
	if t.line >= len(lines) {
		return t.path
	}
	if t.line == 0 && t.col == 0 {
		return libraryModule(t.path) // the module itself: both servers answer its file's start
	}
	return libraryModule(t.path) + "." + identifierFrom(lines[t.line], t.col)
}

// declarationWords are skipped when a target's range starts at the
// declaration rather than at its name.
var declarationWords = map[string]bool{"def": true, "class": true, "async": true, "export": true, "declare": true,
	"function": true, "interface": true, "type": true, "const": true, "let": true, "var": true, "namespace": true,
	"abstract": true, "readonly": true, "static": true, "public": true, "private": true, "protected": true,
	"default": true, "enum": true, "module": true, "get": true, "set": true}

func identifierFrom(line string, col int) string {
	rs := []rune(line) // close enough to UTF-16 for the ASCII of declarations
	isWord := func(r rune) bool {
		return r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 127
	}
	for i := min(col, len(rs)); i < len(rs); {
		if !isWord(rs[i]) {
			i++
			continue
		}
		j := i
		for j < len(rs) && isWord(rs[j]) {
			j++
		}
		if w := string(rs[i:j]); !declarationWords[w] {
			return w
		}
		i = j
	}
	return ""
}

// libraryModule is the module a library file belongs to, the same for a
// library's sources and the stubs of it that a reference server bundles:
// Python's dotted module path below site-packages, the standard library or
// typeshed; a node package's name (its @types package counts as itself).
func libraryModule(path string) string {
	p := filepath.ToSlash(path)
	// pyright's typeshed lives in node_modules too: Python first.
	if i := strings.LastIndex(p, "/node_modules/"); i >= 0 && !strings.Contains(p, "/typeshed-fallback/") {
		parts := strings.Split(p[i+len("/node_modules/"):], "/")
		name := parts[0]
		if strings.HasPrefix(name, "@") && len(parts) > 1 {
			name += "/" + parts[1]
		}
		if rest, ok := strings.CutPrefix(name, "@types/"); ok {
			if scope, pkg, ok := strings.Cut(rest, "__"); ok {
				rest = "@" + scope + "/" + pkg
			}
			name = rest
		}
		return name
	}
	rel := p
	// Any copy of typeshed's stubs (mypy's mypy/typeshed, jedi's) names its
	// modules from its stdlib folder, as pyright's own copy does.
	for _, marker := range []string{"/site-packages/", "/dist-packages/", "/typeshed-fallback/stdlib/", "/typeshed/stdlib/"} {
		if i := strings.LastIndex(rel, marker); i >= 0 {
			rel = rel[i+len(marker):]
		}
	}
	if i := strings.LastIndex(rel, "/typeshed-fallback/stubs/"); i >= 0 {
		rel = rel[i+len("/typeshed-fallback/stubs/"):]
		_, rel, _ = strings.Cut(rel, "/") // the distribution's folder
	}
	if i := strings.Index(rel, "/python-builtins/"); i >= 0 { // kast's stub of the built-in names
		_, rel, _ = strings.Cut(rel[i+len("/python-builtins/"):], "/")
	}
	if i := strings.Index(rel, "/lib/python3"); i >= 0 { // the interpreter's standard library
		_, rel, _ = strings.Cut(rel[i+len("/lib/"):], "/")
	}
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".pyi"), ".py")
	rel = strings.TrimSuffix(rel, "/__init__")
	first, rest, _ := strings.Cut(rel, "/")
	first = strings.TrimSuffix(first, "-stubs")
	module := strings.ReplaceAll(strings.TrimSuffix(first+"/"+rest, "/"), "/", ".")
	return cmp.Or(declaringStub[module], module)
}

// declaringStub names the module whose stub declares the classes that a
// standard library module defines in its source: the collection ABCs are
// _collections_abc's classes at run time (typing's names are aliases of
// them), and typeshed declares them in typing.pyi, which _collections_abc.pyi
// re-exports. One symbol, two module names. Likewise sqlite3.Row is the
// compiled _sqlite3.Row (sqlite3.dbapi2 imports _sqlite3's names whole),
// which typeshed declares in sqlite3/__init__.pyi; and os.path is the
// module posixpath, which typeshed declares as os/path.pyi. (socket's
// methods are not here: socket.socket derives from _socket.socket and
// overrides some, so those are two symbols, whatever a stub omits.)
var declaringStub = map[string]string{"_collections_abc": "typing", "_sqlite3": "sqlite3", "posixpath": "os.path",
	// Older typeshed (mypy 1.0's) declares sqlite3's names in dbapi2.pyi,
	// which sqlite3/__init__.pyi imports whole; newer, in __init__.pyi.
	"sqlite3.dbapi2": "sqlite3",
	// io's classes are _io's (io.py imports them); older typeshed declares
	// them in io.pyi, newer in _io.pyi.
	"_io": "io"}

// inWorkspace: under root, and not in its virtualenv or node_modules.
func inWorkspace(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	for _, dir := range strings.Split(filepath.ToSlash(rel), "/") {
		if dir == "node_modules" || dir == ".venv" || dir == "venv" {
			return false
		}
	}
	return true
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// targets asks for the first definition at every sample.
func targets(ctx context.Context, s *lspServer, l refLang, samples []sample) []target {
	out := make([]target, len(samples))
	for i, smp := range samples {
		var defs json.RawMessage
		at(ctx, s, l, smp, func(params map[string]any) {
			if s.call(ctx, "textDocument/definition", params, &defs) == nil {
				out[i] = firstTarget(defs)
			}
		})
	}
	return out
}

// completions asks for completions at every sample and keeps the first
// five labels that start with the typed letter, in the server's order
// (sortText, then label, as editors sort).
func completions(ctx context.Context, s *lspServer, l refLang, samples []sample) [][]string {
	out := make([][]string, len(samples))
	for i, smp := range samples {
		var list struct {
			Items []struct {
				Label, SortText, FilterText string
			}
		}
		var raw json.RawMessage
		at(ctx, s, l, smp, func(params map[string]any) {
			if s.call(ctx, "textDocument/completion", params, &raw) != nil {
				return
			}
			if json.Unmarshal(raw, &list) != nil || list.Items == nil {
				_ = json.Unmarshal(raw, &list.Items) // a bare array
			}
		})
		typed := strings.ToLower(smp.Name[:1])
		items := slices.DeleteFunc(list.Items, func(it struct{ Label, SortText, FilterText string }) bool {
			return !strings.HasPrefix(strings.ToLower(cmp.Or(it.FilterText, it.Label)), typed)
		})
		slices.SortStableFunc(items, func(a, b struct{ Label, SortText, FilterText string }) int {
			return cmp.Or(cmp.Compare(cmp.Or(a.SortText, a.Label), cmp.Or(b.SortText, b.Label)), cmp.Compare(a.Label, b.Label))
		})
		for _, it := range items[:min(5, len(items))] {
			out[i] = append(out[i], strings.TrimSuffix(it.Label, "?")) // tsserver marks optional members
		}
	}
	return out
}

// at opens the sample's file, runs ask with the position's parameters and
// closes the file again.
func at(ctx context.Context, s *lspServer, l refLang, smp sample, ask func(map[string]any)) {
	u := uri.File(smp.Path)
	_ = s.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": u, "languageId": l.languageID(smp.Path), "version": 1, "text": smp.Text}})
	ask(map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": smp.Line, "character": smp.Col}})
	_ = s.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
}

func firstTarget(raw json.RawMessage) target {
	var many []lspLocation
	if json.Unmarshal(raw, &many) != nil || len(many) == 0 {
		var one lspLocation
		if json.Unmarshal(raw, &one) != nil {
			return target{}
		}
		many = []lspLocation{one}
	}
	loc := many[0]
	u, start := loc.URI, loc.Range.Start
	if loc.TargetURI != "" {
		u, start = loc.TargetURI, loc.TargetSelectionRange.Start
	}
	if u == "" {
		return target{}
	}
	if !strings.HasPrefix(u, "file:") {
		return target{path: u} // a server's virtual document: never a hit
	}
	path := filepath.FromSlash(uri.URI(u).Path())
	if p, err := filepath.EvalSymlinks(path); err == nil {
		path = p
	}
	return target{path: path, line: start.Line, col: start.Character}
}

// waitAnswers returns once the reference server answers a definition at
// one of the first samples: both load a project on first use.
func waitAnswers(ctx context.Context, s *lspServer, l refLang, samples []sample) error {
	for range 120 {
		for _, d := range targets(ctx, s, l, samples[:min(20, len(samples))]) {
			if d.path != "" {
				return nil
			}
		}
		time.Sleep(500 * time.Millisecond)
	}
	return fmt.Errorf("%s never answered a definition", s.name)
}
