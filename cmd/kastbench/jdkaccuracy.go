package main

// Definition accuracy into the JDK: -accuracy jdk scores kast's first
// definition at names javac binds to JDK declarations against javac's
// answer, printed by jdkoracle/JdkOracle.java for the same files:
//
//	java cmd/kastbench/jdkoracle/JdkOracle.java P $(find P -name '*.java' -path '*src/main*') > P.jdk
//	JAVA_HOME=<the JDK javac ran on> kastbench -accuracy jdk -kast bin/kast -root P -oracle P.jdk [-samples 1000]
//
// A hit is a location in the JDK source file javac names (module, package,
// outer class) on the declared name: the overload is not told apart, as
// compare-by-symbol does for the other languages' libraries.
//
// -accuracy kotlin-lib does the same for the Kotlin compiler oracle's
// (../shared/tools/kotlin-oracle) references into libraries, "(library)"
// targets such as kotlin.collections.listOf: a hit is a location in a file
// of that package (kotlin-stdlib's sources, from the Gradle cache) on
// that name.
//
//	kastbench -accuracy kotlin-lib -kast bin/kast -root P -oracle P.oracle

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"go.lsp.dev/uri"
)

// jdkRef is one line of the JDK oracle.
type jdkRef struct {
	file      string // absolute
	line, col int    // 0-based, col in UTF-16 units
	name      string
	target    string // <module>/<package path>/<Outer>.java, or "" for a Kotlin one
	pkg       string // the Kotlin target's package
	declared  string
}

func (r jdkRef) module() string {
	if r.target == "" {
		return r.pkg
	}
	m, _, _ := strings.Cut(r.target, "/")
	return m
}

// hit reports whether a definition at path, line, col is the target.
func (r jdkRef) hit(path string, line, col int) bool {
	if nameAt(path, line, col) != r.declared {
		return false
	}
	if r.target != "" {
		return strings.HasSuffix(filepath.ToSlash(path), "/"+r.target)
	}
	b, err := os.ReadFile(path)
	return err == nil && kotlinPackage.FindStringSubmatch(string(b)) != nil && kotlinPackage.FindStringSubmatch(string(b))[1] == r.pkg
}

var kotlinPackage = regexp.MustCompile(`(?m)^package\s+([\w.]+)`)

// readKotlinLibOracle reads the kotlin-oracle's lines whose target has no
// source: `file:line:col name -> pkg.Class.member @ (library)`.
func readKotlinLibOracle(root, name string) ([]jdkRef, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	own := projectPackages(root)
	libPackages := oraclePackages(string(data))
	var out []jdkRef
	for _, line := range strings.Split(string(data), "\n") {
		fields := strings.Fields(line)
		if len(fields) != 6 || fields[2] != "->" || fields[5] != "(library)" || !isIdent(fields[1]) {
			continue
		}
		segs := strings.Split(fields[3], ".")
		n := 0 // the package: the segments before the first capitalised one
		for n < len(segs)-1 && segs[n] != "" && unicode.IsLower(rune(segs[n][0])) {
			n++
		}
		declared := segs[len(segs)-1]
		if declared == "<init>" && len(segs) > 1 {
			declared = segs[len(segs)-2]
		}
		if n == 0 || strings.ContainsAny(declared, "<>") {
			continue
		}
		path, l, c, ok := oraclePosition(fields[0])
		if !ok {
			continue
		}
		pkg := strings.Join(segs[:n], ".")
		if ownedBy(own, fields[3]) || fields[1] == "it" {
			continue // a package name, or a local or synthetic declaration of the project's
		}
		file := under(root, path)
		if libPackages[fields[3]] && nameAt(file, l-1, c-1) == fields[1] && followedByDot(file, l-1, c-1+len(fields[1])) {
			continue // a library package's name (`kotlin.reflect` of an import): no declaration
		}
		out = append(out, jdkRef{file: file, line: l - 1, col: c - 1, name: fields[1],
			pkg: pkg, declared: declared})
	}
	return out, nil
}

func runJDKAccuracy(language, kast, roots, oracles string, n int) error {
	rs, outs := strings.Split(roots, ","), strings.Split(oracles, ",")
	if len(rs) != len(outs) || oracles == "" {
		return fmt.Errorf("-accuracy jdk: %d roots but %d oracle files", len(rs), len(outs))
	}
	fmt.Printf("%-12s %-20s %6s %7s %9s\n", "project", "module", "refs", "hit@1", "coverage")
	for i := range rs {
		if err := jdkAccuracy(language, kast, rs[i], outs[i], n); err != nil {
			return err
		}
	}
	return nil
}

func readJDKOracle(root, name string) ([]jdkRef, error) {
	f, err := os.Open(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []jdkRef
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 5 || fields[2] != "->" {
			continue
		}
		path, line, col, ok := oraclePosition(fields[0])
		if !ok {
			continue
		}
		out = append(out, jdkRef{file: under(root, path), line: line - 1, col: col - 1,
			name: fields[1], target: fields[3], declared: fields[4]})
	}
	return out, sc.Err()
}

func jdkAccuracy(language, kast, root, oracle string, n int) error {
	ctx := context.Background()
	root, _ = filepath.Abs(root)
	read, languageID := readJDKOracle, "java"
	if language == "kotlin-lib" {
		read, languageID = readKotlinLibOracle, "kotlin"
	}
	refs, err := read(root, oracle)
	if err != nil {
		return err
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(refs), func(i, j int) { refs[i], refs[j] = refs[j], refs[i] })
	refs = refs[:min(n, len(refs))]
	k, libs, cleanup, err := startKastWithLibraries(ctx, root, kast)
	if err != nil {
		return err
	}
	defer cleanup()
	defer k.close()
	type tally struct{ refs, hit, answered int }
	byModule := map[string]*tally{}
	all := &tally{}
	texts := map[string]string{}
	for _, r := range refs {
		t := byModule[r.module()]
		if t == nil {
			t = &tally{}
			byModule[r.module()] = t
		}
		t.refs++
		all.refs++
		if _, ok := texts[r.file]; !ok {
			b, _ := os.ReadFile(r.file)
			texts[r.file] = string(b)
		}
		u := uri.File(r.file)
		_ = k.conn.Notify(ctx, "textDocument/didOpen", map[string]any{"textDocument": map[string]any{
			"uri": u, "languageId": languageID, "version": 1, "text": texts[r.file]}})
		var raw json.RawMessage
		err := k.call(ctx, "textDocument/definition", map[string]any{"textDocument": map[string]any{"uri": u},
			"position": map[string]int{"line": r.line, "character": r.col}}, &raw)
		_ = k.conn.Notify(ctx, "textDocument/didClose", map[string]any{"textDocument": map[string]any{"uri": u}})
		path, line, col, ok := firstPlace(raw)
		if err != nil || !ok {
			if os.Getenv("KASTBENCH_EXPLAIN") != "" {
				fmt.Printf("  none %s:%d:%d %s -> %s %s\n", r.file, r.line+1, r.col+1, r.name, r.module(), r.declared)
			}
			continue
		}
		t.answered++
		all.answered++
		if r.hit(path, line, col) {
			t.hit++
			all.hit++
		} else if os.Getenv("KASTBENCH_EXPLAIN") != "" {
			fmt.Printf("  miss %s:%d:%d %s -> %s %s; kast %s:%d:%d\n", r.file, r.line+1, r.col+1, r.name, r.module(), r.declared, path, line+1, col+1)
		}
	}
	name := filepath.Base(root)
	for _, m := range slices.Sorted(func(yield func(string) bool) {
		for m := range byModule {
			if !yield(m) {
				return
			}
		}
	}) {
		t := byModule[m]
		fmt.Printf("%-12s %-20s %6d %6.1f%% %8.1f%%\n", name, m, t.refs, pct(t.hit, t.refs), pct(t.answered, t.refs))
	}
	fmt.Printf("%-12s %-20s %6d %6.1f%% %8.1f%%\n", name, "all", all.refs, pct(all.hit, all.refs), pct(all.answered, all.refs))
	fmt.Printf("%-12s libraries: %s\n", name, libs)
	return nil
}

// firstPlace is the file and 0-based position of a definition answer's
// first location.
func firstPlace(raw json.RawMessage) (path string, line, col int, ok bool) {
	var many []lspLocation
	if json.Unmarshal(raw, &many) != nil || len(many) == 0 {
		var one lspLocation
		if json.Unmarshal(raw, &one) != nil || one.URI == "" && one.TargetURI == "" {
			return "", 0, 0, false
		}
		many = []lspLocation{one}
	}
	l := many[0]
	if l.TargetURI != "" {
		return strings.TrimPrefix(unescapeURI(l.TargetURI), "file://"), l.TargetSelectionRange.Start.Line, l.TargetSelectionRange.Start.Character, true
	}
	return strings.TrimPrefix(unescapeURI(l.URI), "file://"), l.Range.Start.Line, l.Range.Start.Character, true
}

// nameAt is the identifier starting at a 0-based line and column (ASCII
// sources) of a file.
func nameAt(path string, line, col int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	lines := strings.Split(string(b), "\n")
	if line >= len(lines) || col > len(lines[line]) {
		return ""
	}
	rest := lines[line][col:]
	end := strings.IndexFunc(rest, func(r rune) bool {
		return !(r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r))
	})
	if end < 0 {
		end = len(rest)
	}
	return rest[:end]
}

// under is path made absolute from root unless it is.
func under(root, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(root, path)
}

// projectPackages lists the packages the Kotlin files under root declare.
func projectPackages(root string) map[string]bool {
	out := map[string]bool{}
	paths, _, _ := treeFiles(root)
	for _, p := range paths {
		if !strings.HasSuffix(p, ".kt") {
			continue
		}
		if b, err := os.ReadFile(p); err == nil {
			if m := kotlinPackage.FindSubmatch(b); m != nil {
				out[string(m[1])] = true
			}
		}
	}
	return out
}

// oraclePackages are the library packages the oracle's targets may be
// in, with their parents: `kotlin.reflect` of `import
// kotlin.reflect.KClass` names a package, which has no declaration to go
// to (a parameter's target, `kotlin.collections.joinToString.separator`,
// makes a false one, which followedByDot tells apart).
func oraclePackages(data string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(data, "\n") {
		fields := strings.Fields(line)
		if len(fields) != 6 || fields[5] != "(library)" {
			continue
		}
		segs := strings.Split(fields[3], ".")
		// The package is the lower-case segments before the declared name.
		for n := 1; n < len(segs) && segs[n-1] != "" && unicode.IsLower(rune(segs[n-1][0])); n++ {
			out[strings.Join(segs[:n], ".")] = true
		}
	}
	return out
}

// followedByDot reports whether a 0-based line of a file has a "." at
// column col (after spaces).
func followedByDot(path string, line, col int) bool {
	b, err := os.ReadFile(path)
	if err != nil {
		return false
	}
	lines := strings.Split(string(b), "\n")
	return line < len(lines) && col <= len(lines[line]) && strings.HasPrefix(strings.TrimLeft(lines[line][col:], " "), ".")
}

// ownedBy reports whether a fully qualified name is one of the project's
// packages, a prefix of one (com.squareup), or inside one.
func ownedBy(own map[string]bool, fq string) bool {
	for p := range own {
		if p == fq || strings.HasPrefix(p, fq+".") || strings.HasPrefix(fq, p+".") {
			return true
		}
	}
	return false
}

// oraclePosition splits an oracle's `file:line:col` (1-based); ok is false
// when it is not one.
func oraclePosition(s string) (path string, line, col int, ok bool) {
	i := strings.LastIndexByte(s, ':')
	j := strings.LastIndexByte(s[:max(i, 0)], ':')
	if i < 0 || j < 0 {
		return "", 0, 0, false
	}
	line, err1 := strconv.Atoi(s[j+1 : i])
	col, err2 := strconv.Atoi(s[i+1:])
	if err1 != nil || err2 != nil || line < 1 || col < 1 {
		return "", 0, 0, false
	}
	return s[:j], line, col, true
}
