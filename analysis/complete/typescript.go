package complete

import (
	"cmp"
	"slices"
	"strings"

	"github.com/kast-dev/kast/analysis/resolve"

	"github.com/kast-dev/kast/analysis"
)

// ecmaNames adds, after `q.` in TypeScript or JavaScript, the names q
// has besides its type's members: a namespace import's declarations,
// globalThis's values, the keys checks and mapped types prove.
func (c *collector) ecmaNames(qualifier string, offset int) {
	c.namespaceMembers(qualifier, offset)
	c.globalThisMembers(qualifier)
	c.checkedKeys(qualifier, offset)
	c.mappedLiteralKeys(qualifier, offset)
	c.inlineObjectMembers(qualifier, offset)
}

// inlineObjectMembers adds, after `v.` where v's written type is an object
// type written inline (`params?: { maximum?: number }`), its members.
func (c *collector) inlineObjectMembers(qualifier string, offset int) {
	at := analysis.Span{Start: offset, End: offset}
	for _, m := range c.s.Resolver().InlineObjectMembers(c.f.Path, qualifier, innermostScope(c.f, offset), innermostDef(c.f, offset), at) {
		c.addDef(m, RankMember)
	}
}

// namespaceMembers adds, after `ns.` where `import * as ns from "m"`, the
// declarations of module m: values in an expression, as tsserver lists
// them, and types too where a type is written.
func (c *collector) namespaceMembers(qualifier string, offset int) {
	if !isIdentText(qualifier) {
		return
	}
	typePos := c.typePosition(qualifier, offset)
	for _, id := range c.s.Resolver().NamespaceMembers(c.f.Path, qualifier) {
		if k := c.s.File(id.Path).Defs[id.Index].Kind; typePos || k != analysis.KindInterface && k != analysis.KindTypeAlias {
			c.addDef(id, RankLocal)
		}
	}
}

// typePosition reports whether the member after `qualifier.` at offset is
// written where a type is: as the file's reference there says (the value
// of a key, `{ name: z.string() }`, is an expression), else as the text
// before the qualifier suggests.
func (c *collector) typePosition(qualifier string, offset int) bool {
	for _, r := range c.f.Refs {
		if r.Span.Start == offset && r.Qualifier == qualifier {
			return r.Role&analysis.RoleType != 0
		}
	}
	return inTypePosition(c.text, offset-len(qualifier)-1)
}

// inTypePosition reports whether the TypeScript expression ending at end
// is written where a type is: after a colon, in type arguments, in a union
// or intersection.
func inTypePosition(text []byte, end int) bool {
	i := min(end, len(text))
	for i > 0 && isIdent(text[i-1]) {
		i--
	}
	for i > 0 && (text[i-1] == ' ' || text[i-1] == '\t') {
		i--
	}
	return i > 0 && strings.IndexByte(":<|&", text[i-1]) >= 0
}

// isIdentText reports whether s is a single identifier.
func isIdentText(s string) bool {
	for i := range len(s) {
		if !isIdent(s[i]) {
			return false
		}
	}
	return s != ""
}

// tsMemberOrder ranks a member as tsserver's sortText does: declared
// members, then optional ones (`retry?: number`), then deprecated ones.
func (c *collector) tsMemberOrder(it Item) int {
	if it.Def.Path == "" {
		return 0
	}
	g := c.s.File(it.Def.Path)
	if g == nil || int(it.Def.Index) >= len(g.Defs) {
		return 0
	}
	d := g.Defs[it.Def.Index]
	switch {
	case strings.Contains(d.Doc, "@deprecated"):
		return 2
	case optionalMember(d):
		return 1
	}
	return 0
}

// optionalMember reports whether a TypeScript member is declared optional:
// its name is followed by a question mark in its declaration.
func optionalMember(d analysis.Def) bool {
	i := strings.Index(d.Signature, d.Name)
	return i >= 0 && strings.HasPrefix(d.Signature[i+len(d.Name):], "?")
}

// namespaceExports adds, after `z.` where z is bound to a namespace import
// in a library's entry file (zod exports its `z` so), the names the
// namespace's module exports: values in an expression, types too where a
// type is written.
func (c *collector) namespaceExports(t resolve.DefID, qualifier string, offset int) {
	exports := c.s.Resolver().NamespaceExports(t)
	if len(exports) == 0 {
		return
	}
	typePos := c.typePosition(qualifier, offset)
	for _, e := range exports {
		g := c.s.File(e.Def.Path)
		if g == nil || int(e.Def.Index) >= len(g.Defs) {
			continue
		}
		d := g.Defs[e.Def.Index]
		if !typePos && (d.Kind == analysis.KindInterface || d.Kind == analysis.KindTypeAlias) {
			continue
		}
		c.add(Item{Label: e.Name, Kind: d.Kind, Detail: cmp.Or(d.Signature, d.TypeName), Def: e.Def, Rank: RankLocal})
	}
}

// globalThisMembers adds, after `globalThis.`, the global values of
// TypeScript's libraries (`globalThis.AbortSignal`), which tsserver lists
// by name.
func (c *collector) globalThisMembers(qualifier string) {
	if qualifier != "globalThis" {
		return
	}
	for _, id := range c.s.Resolver().GlobalValues(c.f.Path) {
		c.addDef(id, RankLocal)
	}
}

// checkedKeys adds, after `v.` where `"message" in v` holds, the keys the
// checks prove v has, as tsserver lists them.
func (c *collector) checkedKeys(qualifier string, offset int) {
	if !isIdentText(qualifier) {
		return
	}
	for _, cast := range c.f.Casts {
		if key, ok := strings.CutPrefix(cast.Type, analysis.InKeyPrefix); ok && cast.Name == qualifier && cast.Span.Contains(offset) {
			c.add(Item{Label: key, Kind: analysis.KindProperty, Rank: RankLocal})
		}
	}
}

// mappedLiteralKeys adds, after `v.` where v is declared in the file with a
// mapped type over string literals (zod's `Gender: { [k in "masculine" |
// "feminine"]: Articles }`), those literals: the keys tsserver lists.
func (c *collector) mappedLiteralKeys(qualifier string, offset int) {
	if !isIdentText(qualifier) {
		return
	}
	for s := innermostScope(c.f, offset); s != analysis.None && int(s) < len(c.f.Scopes); s = c.f.Scopes[s].Parent {
		for _, d := range c.f.Defs {
			if d.Name != qualifier || d.Scope != s || d.NameSpan.Start > offset {
				continue
			}
			for _, key := range literalKeys(d.TypeName) {
				c.add(Item{Label: key, Kind: analysis.KindProperty, Rank: RankLocal})
			}
			return // the nearest declaration of the name shadows the others
		}
	}
}

// literalKeys are the string literals a mapped type `{ [k in "a" | "b"]: T }`
// maps over, or none.
func literalKeys(t string) []string {
	body, ok := strings.CutPrefix(strings.TrimSpace(t), "{")
	if !ok {
		return nil
	}
	body, ok = strings.CutPrefix(strings.TrimSpace(body), "[")
	if !ok {
		return nil
	}
	_, union, ok := strings.Cut(body, " in ")
	end := strings.IndexByte(union, ']')
	if !ok || end < 0 {
		return nil
	}
	var keys []string
	for _, part := range strings.Split(union[:end], "|") {
		part = strings.TrimSpace(part)
		if len(part) < 2 || part[0] != part[len(part)-1] || part[0] != '"' && part[0] != '\'' {
			return nil // keys of another type than literals
		}
		keys = append(keys, part[1:len(part)-1])
	}
	return keys
}

// tsSupertypes are the types TypeScript type t extends: each declaration
// a supertype's name binds among its best candidates, since a class and
// the interface that merges with it are one type (@types/node's
// EventEmitter gives its class its members through such an interface).
func (c *collector) tsSupertypes(t resolve.DefID) []resolve.DefID {
	var out []resolve.DefID
	for _, e := range c.s.Resolver().Supertypes(t) {
		for _, cand := range e.Targets {
			if cand.Uncertain || cand.Confidence != e.Targets[0].Confidence {
				break
			}
			out = append(out, cand.Def)
		}
	}
	return out
}

// callableMembers visits, when a receiver's type has call signatures
// (`Date` is a DateConstructor, which `(): string` makes callable), the
// global interface Function, whose members (`name`, `bind`) tsserver lists
// for every callable value.
func (c *collector) callableMembers(types []resolve.Candidate, visit func(resolve.DefID)) {
	for _, t := range types {
		g := c.s.File(t.Def.Path)
		if t.Uncertain || g == nil || int(t.Def.Index) >= len(g.Defs) {
			continue
		}
		if d := g.Defs[t.Def.Index]; d.Kind == analysis.KindInterface && strings.HasPrefix(d.TypeName, "{ (") {
			for _, f := range c.s.Resolver().GlobalTypes(c.f.Path, "Function") {
				visit(f)
			}
			return
		}
	}
}

// notEcmaGlobal reports whether a TypeScript or JavaScript declaration
// that nothing contains is still no name of its file's scope: a property
// of an inline object type (lib.dom.d.ts's `declare var
// WebGL2RenderingContext: { readonly SAMPLER_2D: … }`).
func notEcmaGlobal(g *analysis.FileFacts, d analysis.Def) bool {
	return (g.Lang == "typescript" || g.Lang == "javascript") && (d.Scope != 0 || d.Kind == analysis.KindField)
}

// dropTypesInExpressions leaves out, where the name completed at start is
// read as a value (the file's reference there says so), the names that
// are types alone, interfaces and type aliases, which tsserver does not
// offer in an expression.
func (c *collector) dropTypesInExpressions(start int) {
	for _, r := range c.f.Refs {
		if r.Span.Start != start || r.Qualifier != "" {
			continue
		}
		if r.Role&analysis.RoleType != 0 || r.Role&analysis.RoleRead == 0 {
			return
		}
		c.items = slices.DeleteFunc(c.items, func(it Item) bool {
			typeOnly := it.Kind == analysis.KindInterface || it.Kind == analysis.KindTypeAlias || it.Kind == analysis.KindTypeParameter
			return typeOnly && !c.hasValueTwin(it.Def)
		})
		clear(c.seen)
		for i, it := range c.items {
			c.seen[it.Label] = i
		}
		return
	}
}

// hasValueTwin reports whether the file declaring type id declares a value
// of the same name beside it (lib.dom.d.ts's `interface Response` and
// `declare var Response`), which completion lists under the one label.
func (c *collector) hasValueTwin(id resolve.DefID) bool {
	g := c.s.File(id.Path)
	if g == nil || int(id.Index) >= len(g.Defs) {
		return false
	}
	t := g.Defs[id.Index]
	for _, d := range g.Defs {
		if d.Name != t.Name || d.Container != t.Container || d.Scope != t.Scope {
			continue
		}
		switch d.Kind {
		case analysis.KindVariable, analysis.KindConstant, analysis.KindFunction, analysis.KindClass, analysis.KindEnum, analysis.KindModule:
			return true
		}
	}
	return false
}

// tsGroupRank is the Rank of each tsNameGroup, the order a client sorts
// the items in.
var tsGroupRank = [...]Rank{RankLocal, RankWorkspace, RankKeyword}

// tsNameGroup ranks a bare name as tsserver's sortText does, each group
// sorted by name: the names in scope (locals, the file's, imports), then
// globals and keywords, then the names an import would bring in.
func tsNameGroup(it Item) int {
	switch {
	case it.Keyword:
		return 1 // tsserver's GlobalsOrKeywords, wherever kast ranks a statement's keywords
	case it.Rank <= RankImported:
		return 0
	case it.Rank == RankKeyword || it.Import == nil:
		return 1
	}
	return 2
}

// ecmaGlobals adds the global values of TypeScript's default libraries
// whose names start with the prefix, ignoring case: the workspace's symbol
// search keeps its best fuzzy matches, where lib.dom.d.ts's RTCCertificate
// and SVGAElement lose to names that keep the prefix's case.
func (c *collector) ecmaGlobals() {
	if c.prefix == "" {
		return
	}
	lower := strings.ToLower(c.prefix)
	for _, id := range c.s.Resolver().GlobalValues(c.f.Path) {
		if g := c.s.File(id.Path); g != nil && int(id.Index) < len(g.Defs) && strings.HasPrefix(strings.ToLower(g.Defs[id.Index].Name), lower) {
			c.addDef(id, RankWorkspace)
		}
	}
}

// typeOnlyImport reports whether TypeScript import imp of the file's text
// binds a type alone: `import type { A }` or `import { type A }`, which
// names no value in an expression.
func typeOnlyImport(text []byte, imp analysis.Import) bool {
	if imp.Span.End > len(text) || imp.Span.Start >= imp.Span.End || imp.Name == "" {
		return false
	}
	stmt := string(text[imp.Span.Start:imp.Span.End])
	if strings.HasPrefix(stmt, "import type ") {
		return true
	}
	for i := strings.Index(stmt, imp.Name); i >= 0; {
		before := strings.TrimRight(stmt[:i], " \t\n")
		after := stmt[i+len(imp.Name):]
		if strings.HasSuffix(before, "type") && (after == "" || !isIdent(after[0])) {
			if b := strings.TrimRight(before[:len(before)-len("type")], " \t\n"); strings.HasSuffix(b, "{") || strings.HasSuffix(b, ",") {
				return true
			}
		}
		next := strings.Index(stmt[i+1:], imp.Name)
		if next < 0 {
			break
		}
		i += 1 + next
	}
	return false
}

// exportOnly reports whether TypeScript import imp records an export
// clause, `export { _undefined as undefined }` or `export { a } from "m"`,
// which binds no name of the file (zod's schemas.ts offered `undefined`
// among its own names).
func exportOnly(text []byte, imp analysis.Import) bool {
	if imp.Path == "" {
		return true
	}
	return imp.Span.Start < imp.Span.End && imp.Span.End <= len(text) && strings.HasPrefix(string(text[imp.Span.Start:imp.Span.End]), "export")
}
