// Package complete proposes completions at a place in a file: members after
// a dot from the receiver's inferred type, else the names in scope, the
// package's and imports' names, workspace symbols with the import they need,
// and the language's keywords, ranked in that order.
package complete

import (
	"cmp"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/navigate"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Snapshot is what completion reads.
type Snapshot interface {
	navigate.Snapshot
	SymbolsMatching(pattern string, fuzzy bool, limit int) []workspace.Symbol
	TopLevel(path string) []workspace.TopLevelDef
	TopLevels(paths []string) [][]workspace.TopLevelDef
	RootOf(path string) string
	GoMethodFiles(receiver string) []string
}

// Rank orders items: lower is better.
type Rank int

const (
	RankLocal Rank = iota
	RankMember
	RankFile
	RankPackage
	RankImported
	RankWorkspace
	RankKeyword
)

// Item is one proposal.
type Item struct {
	Label   string
	Kind    analysis.Kind // KindUnknown for a keyword
	Keyword bool
	Detail  string
	Def     resolve.DefID // Def.Path is "" for keywords
	Rank    Rank
	Score   int // how well Label matches the prefix
	// Relevance ranks Go members as gopls does (higher first); a deep
	// completion's Label is the chain it inserts (Header().Clone).
	Relevance float64
	// Import, when set, is an edit adding the import the name needs.
	Import *Edit
	// owner is the Go type a member was found on ("" for a package's
	// name): the standard library's api files date members by it.
	owner string
}

// Edit inserts Text at Offset.
type Edit struct {
	Offset int
	Text   string
}

// Result is the proposals and the span of text they replace.
type Result struct {
	Replace analysis.Span // Start..End byte offsets of the prefix typed so far
	Items   []Item
	// Incomplete is set when items were left out (the list was cut, or a
	// symbol search hit its bound): a longer prefix may bring others.
	Incomplete bool
}

// maxItems bounds a result; the editor asks again as the prefix grows.
const maxItems = 200

// Complete proposes completions at offset of path, whose text is text.
func Complete(s Snapshot, file string, offset int, text []byte) Result {
	offset = max(0, min(offset, len(text)))
	start := offset
	for start > 0 && isIdent(text[start-1]) {
		start--
	}
	res := Result{Replace: analysis.Span{Start: start, End: offset}}
	f := s.File(file)
	if f == nil {
		return res
	}
	prefix := string(text[start:offset])
	c := &collector{s: s, f: f, prefix: prefix, seen: map[string]int{}, text: text}
	q := qualifierBefore(text, start)
	if f.Lang == "python" {
		// A string's prefix letters decide its type: b"x" is bytes.
		q = cmp.Or(pythonLiteralBefore(text, start), q)
	}
	if q != "" {
		if !c.rustPathMembers(text, start) {
			c.members(q, start)
		}
		if f.Lang == "go" {
			end := offset
			for end < len(text) && isIdent(text[end]) {
				end++
			}
			c.rankGoMembers(q, start, end, len(c.items) > 0 && c.items[0].Rank == RankMember)
		}
	} else {
		c.scope(start)
		c.packageNames()
		c.imported()
		c.workspace(text)
		c.keywords()
		c.goUniverse()
		c.statementKeywords(text, start)
		if c.f.Lang == "go" && c.goTypePosition("", start) {
			c.keepTypes()
		}
		if c.f.Lang == "typescript" || c.f.Lang == "javascript" {
			c.ecmaGlobals()
			c.dropTypesInExpressions(start)
		}
	}
	// Scope distance, then how the label matches (a prefix before a
	// scattered match), then kind, then name.
	// The keys are worked out once per item, not at every comparison: a
	// package's completions are thousands of items.
	lower := strings.ToLower(prefix)
	byKind := kindOrder
	if q != "" && (f.Lang == "typescript" || f.Lang == "javascript") {
		byKind = c.tsMemberOrder // tsserver sorts a type's members by name, optional and deprecated ones last
	}
	// gopls's matcher prefers a label that keeps the prefix's case (c.g:
	// genZshCompletion before GroupID).
	goMembers := q != "" && f.Lang == "go"
	type keyed struct {
		it       Item
		unprefix int // 0 when the label starts with the prefix, ignoring case (Go: in its case)
		kind     int
	}
	ks := make([]keyed, len(c.items))
	for i, it := range c.items {
		unprefix := 2 * btoi(!strings.HasPrefix(strings.ToLower(it.Label), lower))
		if goMembers && unprefix == 0 && !strings.HasPrefix(it.Label, prefix) {
			unprefix = 1
		}
		ks[i] = keyed{it, unprefix, byKind(it)}
	}
	ecmaNames := q == "" && (f.Lang == "typescript" || f.Lang == "javascript")
	slices.SortFunc(ks, func(a, b keyed) int {
		if ecmaNames {
			return cmp.Or(cmp.Compare(tsNameGroup(a.it), tsNameGroup(b.it)), cmp.Compare(a.unprefix, b.unprefix), strings.Compare(a.it.Label, b.it.Label))
		}
		if goMembers {
			return cmp.Or(cmp.Compare(a.it.Rank, b.it.Rank), cmp.Compare(b.it.Relevance, a.it.Relevance), strings.Compare(a.it.Label, b.it.Label))
		}
		return cmp.Or(cmp.Compare(a.it.Rank, b.it.Rank), cmp.Compare(a.unprefix, b.unprefix),
			cmp.Compare(a.kind, b.kind), cmp.Compare(a.it.Label, b.it.Label))
	})
	for i := range ks {
		c.items[i] = ks[i].it
		if ecmaNames {
			c.items[i].Rank = tsGroupRank[tsNameGroup(ks[i].it)] // what a client sorts by
		}
	}
	if q != "" && f.Lang == "python" {
		c.sortPythonMembers()
	}
	res.Items = c.items[:min(len(c.items), maxItems)]
	res.Incomplete = c.cut || len(c.items) > maxItems
	return res
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

type collector struct {
	s      Snapshot
	f      *analysis.FileFacts
	prefix string
	items  []Item
	seen   map[string]int // label → index in items
	cut    bool           // a symbol search returned as many as it was asked for
	text   []byte
	gate   *goVersionGate // made on a Go member completion's first need
}

func (c *collector) add(it Item) {
	it.Score = analysis.FuzzyScore(c.prefix, it.Label)
	if it.Score == 0 || it.Label == "" {
		return
	}
	if i, ok := c.seen[it.Label]; ok {
		if c.items[i].Rank <= it.Rank {
			return
		}
		c.items[i] = it
		return
	}
	c.seen[it.Label] = len(c.items)
	c.items = append(c.items, it)
}

func (c *collector) addDef(id resolve.DefID, rank Rank) { c.addMember(id, rank, "") }

// addMember adds a definition found as a member of the type named owner.
func (c *collector) addMember(id resolve.DefID, rank Rank, owner string) {
	d := c.s.File(id.Path).Defs[id.Index]
	switch d.Kind {
	case analysis.KindLambda, analysis.KindConstructor:
		return
	}
	c.add(Item{Label: d.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Def: id, Rank: rank, owner: owner})
}

// scope adds the names visible at offset: locals and parameters declared
// before it, members of enclosing types, the file's top-level names.
func (c *collector) scope(offset int) {
	inner := innermostScope(c.f, offset)
	for sc := inner; sc != analysis.None && int(sc) < len(c.f.Scopes); sc = c.f.Scopes[sc].Parent {
		owner := c.f.Scopes[sc].Def
		rank := RankLocal
		switch {
		case sc == 0 || c.f.Scopes[sc].Parent == analysis.None:
			rank = RankFile
		case owner != analysis.None && c.f.Defs[owner].Kind.IsType():
			rank = RankMember
		}
		for i, d := range c.f.Defs {
			if d.Scope != sc || d.NameSpan.Contains(offset) || d.NameSpan.End == offset {
				continue
			}
			if rank == RankLocal && d.NameSpan.Start > offset {
				continue
			}
			if c.f.Lang == "go" && d.Receiver != "" {
				continue // a Go method is reached through its receiver only
			}
			c.addDef(resolve.DefID{Path: c.f.Path, Index: int32(i)}, rank)
		}
	}
}

func innermostScope(f *analysis.FileFacts, offset int) int32 {
	best := analysis.None
	for i, sc := range f.Scopes {
		if sc.Span.Start <= offset && offset <= sc.Span.End &&
			(best == analysis.None || sc.Span.End-sc.Span.Start <= f.Scopes[best].Span.End-f.Scopes[best].Span.Start) {
			best = int32(i)
		}
	}
	if best == analysis.None && len(f.Scopes) > 0 {
		return 0
	}
	return best
}

func innermostDef(f *analysis.FileFacts, offset int) int32 {
	best := analysis.None
	for i, d := range f.Defs {
		if d.Kind != analysis.KindParameter && d.FullSpan.Start <= offset && offset <= d.FullSpan.End &&
			(best == analysis.None || d.FullSpan.End-d.FullSpan.Start <= f.Defs[best].FullSpan.End-f.Defs[best].FullSpan.Start) {
			best = int32(i)
		}
	}
	return best
}

// packageNames adds the top-level names of the package's other files.
func (c *collector) packageNames() {
	if c.f.Package == "" {
		return
	}
	var files []string
	for _, p := range c.s.FilesInPackage(c.f.Lang, c.f.Package) {
		// Paths first: a Go package name such as main spans many directories,
		// and decoding their files is most of the cost. Neither are the
		// names of files built for other platforms in scope (syscall has
		// a dozen zerrors_GOOS_GOARCH.go files).
		if p == c.f.Path || c.f.Lang == "go" && (filepath.Dir(p) != filepath.Dir(c.f.Path) || !resolve.BuildsWith(c.f.Path, p)) {
			continue
		}
		files = append(files, p)
	}
	// Read at once: runtime's or syscall's hundreds of files took a
	// read of the index each.
	for i, defs := range c.s.TopLevels(files) {
		p := files[i]
		for _, d := range defs {
			switch {
			case d.Receiver != "", d.Kind == analysis.KindLambda, d.Kind == analysis.KindConstructor:
				continue
			}
			c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: RankPackage})
		}
	}
}

// imported adds the names the file's imports bring in.
func (c *collector) imported() {
	for _, imp := range c.f.Imports {
		if imp.Wildcard {
			continue
		}
		if (c.f.Lang == "typescript" || c.f.Lang == "javascript") && exportOnly(c.text, imp) {
			continue
		}
		name := cmp.Or(imp.Alias, imp.Name)
		it := Item{Label: name, Kind: analysis.KindModule, Detail: imp.Path, Rank: RankImported}
		if c.f.Lang == "go" {
			// A Go import names a package, never a declaration; the
			// package of "math/rand/v2" is rand.
			it.Label = resolve.GoImportName(imp)
			c.add(it)
			continue
		}
		for _, id := range c.s.DefsNamed(imp.Name) {
			if id.Nested {
				continue // known from the name table, without decoding the file
			}
			if d := c.s.File(id.Path).Defs[id.Index]; d.Container == analysis.None {
				it.Kind, it.Def = d.Kind, id.DefID
				break
			}
		}
		if (c.f.Lang == "typescript" || c.f.Lang == "javascript") && it.Kind != analysis.KindInterface && typeOnlyImport(c.text, imp) {
			it.Kind, it.Def = analysis.KindTypeAlias, resolve.DefID{} // a type, whatever else has its name
		}
		c.add(it)
	}
}

// workspace adds top-level names declared anywhere in the workspace in the
// file's language, each with the import it needs.
func (c *collector) workspace(text []byte) {
	// Go names another package's declarations through its package name
	// (completed after the dot), never bare.
	if c.prefix == "" || c.f.Lang == "go" {
		return
	}
	syms := c.s.SymbolsMatching(c.prefix, false, maxItems)
	c.cut = len(syms) >= maxItems
	for _, sym := range syms {
		// What the name tables say rules out most matches (members,
		// locals, other languages, names already proposed) before any
		// file is decoded.
		if sym.Lang != c.f.Lang || sym.ID.Path == c.f.Path || sym.Container != "" || !workspaceKind(sym) {
			continue
		}
		if _, ok := c.seen[sym.Name]; ok {
			continue
		}
		id := sym.ID
		g := c.s.File(id.Path)
		if g == nil || g.Lang != c.f.Lang || int(id.Index) >= len(g.Defs) {
			continue
		}
		d := g.Defs[id.Index]
		if d.Container != analysis.None || d.Receiver != "" || d.Kind == analysis.KindVariable && g.Lang == "python" || notEcmaGlobal(g, d) ||
			!resolve.LoadedLibFile(id.Path) {
			continue
		}
		if _, ok := c.seen[d.Name]; ok {
			continue
		}
		it := Item{Label: d.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Def: id, Rank: RankWorkspace}
		it.Import = c.importEdit(g, d.Name, text)
		if it.Import != nil {
			it.Detail = strings.TrimSpace(it.Import.Text)
		}
		c.add(it)
	}
}

// workspaceKind reports whether a top-level definition of this kind, as
// the name tables list it, may be proposed from another file: not a Go
// method (which needs its receiver) nor a Python module-level variable.
func workspaceKind(sym workspace.Symbol) bool {
	if !sym.Kind.IsSymbol() {
		return false
	}
	switch sym.Kind {
	case analysis.KindConstructor:
		return false
	case analysis.KindMethod:
		return sym.Lang != "go"
	case analysis.KindVariable:
		return sym.Lang != "python"
	}
	return true
}

var packageLine = regexp.MustCompile(`(?m)^package\s+[\w.]+;?[ \t]*$`)

// importEdit is the import statement that brings name from file g into the
// file, where it goes; nil when the language needs none or kast cannot say.
func (c *collector) importEdit(g *analysis.FileFacts, name string, text []byte) *Edit {
	var stmt string
	switch c.f.Lang {
	case "kotlin", "java":
		if g.Package == "" || g.Package == c.f.Package {
			return nil
		}
		stmt = "import " + g.Package + "." + name
		if c.f.Lang == "java" {
			stmt += ";"
		}
	case "python":
		// The module as imports name it: naming's one rule (a src/ layout
		// folder is not part of it).
		root := c.s.RootOf(g.Path)
		mod := naming.Qualifier(root, g)
		if root == "" || mod == "" {
			return nil
		}
		stmt = "from " + mod + " import " + name
	case "typescript", "tsx", "javascript":
		rel, err := filepath.Rel(filepath.Dir(c.f.Path), strings.TrimSuffix(g.Path, filepath.Ext(g.Path)))
		if err != nil {
			return nil
		}
		rel = path.Clean(filepath.ToSlash(rel))
		if !strings.HasPrefix(rel, ".") {
			rel = "./" + rel
		}
		stmt = "import { " + name + " } from \"" + rel + "\";"
	default:
		return nil
	}
	if n := len(c.f.Imports); n > 0 {
		return &Edit{Offset: lineEnd(text, c.f.Imports[n-1].Span.End), Text: "\n" + stmt}
	}
	if loc := packageLine.FindIndex(text); loc != nil {
		return &Edit{Offset: loc[1], Text: "\n\n" + stmt}
	}
	return &Edit{Offset: 0, Text: stmt + "\n"}
}

func lineEnd(text []byte, i int) int {
	for i < len(text) && text[i] != '\n' {
		i++
	}
	return i
}

// members adds the members of the types the qualifier before a dot denotes.
func (c *collector) members(qualifier string, offset int) {
	if c.f.Lang == "python" && c.pythonModuleMembers(qualifier) {
		return // a name a module is bound to has the module's attributes
	}
	r := c.s.Resolver()
	types := r.ReceiverTypes(c.f.Path, qualifier, innermostScope(c.f, offset), innermostDef(c.f, offset), analysis.Span{Start: offset, End: offset})
	seen := map[resolve.DefID]bool{}
	ecma := c.f.Lang == "typescript" || c.f.Lang == "javascript"
	maxDepth := 6
	if ecma {
		maxDepth = 10 // express's Response is seven types below NodeJS.EventEmitter
	}
	var visit func(t resolve.DefID, depth int)
	visit = func(t resolve.DefID, depth int) {
		if seen[t] || depth > maxDepth {
			return
		}
		seen[t] = true
		g := c.s.File(t.Path)
		if g == nil {
			return
		}
		if arms := r.UnionArms(t); len(arms) > 1 {
			c.sharedMembers(arms, func(a resolve.DefID) { visit(a, depth+1) }, func() { clear(seen) })
			return
		}
		rank := RankLocal + Rank(min(depth, 1)) // own members before inherited ones
		if ecma || c.f.Lang == "go" {
			// tsserver lists a type's members alike, by name; gopls its
			// own and its embedded types' (s.I: IInt, promoted, before
			// InlinedStruct).
			rank = RankLocal
		}
		name := g.Defs[t.Index].Name
		for i, d := range g.Defs {
			if d.Container == t.Index && d.Kind != analysis.KindParameter && d.Kind != analysis.KindTypeParameter && d.Name != analysis.IndexSignatureName {
				c.addMember(resolve.DefID{Path: t.Path, Index: int32(i)}, rank, name)
			}
		}
		// Members declared outside the type: Go methods, Kotlin extensions.
		if g.Lang == "go" {
			// A Go method is at the top level of a file of its type's
			// package, in the type's directory, built for the platform
			// of the file completed (as packageNames lists). The file
			// table names the files declaring methods on the type:
			// decoding every file of a large package (ssa's rewrite
			// rules) was most of a first member completion there.
			for _, p := range c.s.GoMethodFiles(name) {
				if filepath.Dir(p) != filepath.Dir(t.Path) || !resolve.BuildsWith(c.f.Path, p) {
					continue
				}
				for _, d := range c.s.TopLevel(p) {
					if d.Receiver == name {
						c.add(Item{Label: d.Name, Kind: d.Kind, Detail: d.Detail, Def: resolve.DefID{Path: p, Index: d.Index}, Rank: rank, owner: name})
					}
				}
			}
		} else if g.Lang != "python" {
			// Python declares a class's members in its body alone; its
			// files have no package, so this would decode every Python
			// file of the workspace and its libraries, per class visited.
			for _, p := range c.s.FilesInPackage(g.Lang, g.Package) {
				h := c.s.File(p)
				if h == nil {
					continue // listed, but gone from the index since
				}
				for i, d := range h.Defs {
					if d.Receiver != "" && resolve.BaseTypeName(d.Receiver) == name {
						c.addDef(resolve.DefID{Path: p, Index: int32(i)}, rank)
					}
				}
			}
		}
		if ecma {
			c.namespaceExports(t, qualifier, offset)
		}
		if ecma {
			for _, sup := range c.tsSupertypes(t) {
				visit(sup, depth+1)
			}
		} else {
			for _, sup := range navigate.Supertypes(c.s, t) {
				visit(sup.Def, depth+1)
			}
		}
		if ecma && depth == 0 {
			for _, m := range r.MergedDeclarations(t) {
				visit(m, depth) // one interface, declared in several files
			}
		}
		for _, a := range r.AliasedTypes(t) {
			visit(a.Def, depth+1)
		}
		for _, a := range r.AliasSupertypes(t) {
			visit(a.Def, depth+1)
		}
	}
	for _, t := range types {
		if !t.Uncertain {
			visit(t.Def, 0)
		}
	}
	if ecma {
		c.callableMembers(types, func(t resolve.DefID) { visit(t, 1) })
	}
	if ecma && len(types) == 0 {
		// A value of a written union type (`number | bigint`) has the
		// members its arms share.
		if arms := r.ReceiverUnionArms(c.f.Path, qualifier, innermostScope(c.f, offset), innermostDef(c.f, offset), analysis.Span{Start: offset, End: offset}); len(arms) > 1 {
			c.sharedMembers(arms, func(a resolve.DefID) { visit(a, 1) }, func() { clear(seen) })
		}
	}
	if ecma {
		c.ecmaNames(qualifier, offset)
	}
	if len(seen) > 0 && c.f.Lang == "python" {
		c.pythonObjectMembers(visit)
		c.pythonClassObjectMembers(qualifier, offset, visit)
	}
	if len(c.items) == 0 && c.f.Lang == "go" {
		c.goPackageMembers(qualifier, c.goTypePosition(qualifier, offset))
	}
	if c.f.Lang == "go" {
		c.dropUnexported()
		c.dropTooNew()
	}
}

func isIdent(b byte) bool {
	return b == '_' || b == '$' || b >= '0' && b <= '9' || b >= 'a' && b <= 'z' || b >= 'A' && b <= 'Z' || b >= 0x80
}

// sharedMembers adds the members that every arm of a union has, as
// tsserver lists a union's: each arm's types are visited apart (forget
// clears what the visit has seen), and only the labels all arms gave stay.
func (c *collector) sharedMembers(arms [][]resolve.Candidate, visit func(resolve.DefID), forget func()) {
	items, seen := c.items, c.seen
	var shared []Item
	for k, arm := range arms {
		c.items, c.seen = nil, map[string]int{}
		forget()
		for _, t := range arm {
			visit(t.Def)
		}
		if k == 0 {
			shared = c.items
			continue
		}
		shared = slices.DeleteFunc(shared, func(it Item) bool { _, ok := c.seen[it.Label]; return !ok })
	}
	c.items, c.seen = items, seen
	for _, it := range shared {
		c.add(it)
	}
}
