package resolve

import (
	"hash/fnv"
	"path"
	"path/filepath"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Before the pass, a query for a Go field or method resolves every
// reference so named in the folders that may import its package: for Pos
// or Len, hundreds of files decoded whole to find a few uses. Most of those
// selectors are x.Pos with x a parameter, receiver or local whose type is
// written in its declaration (n ir.Node, b *bytes.Buffer), and the
// resolver finds x.Pos among the members of that type alone: declared by
// it, by what it embeds, or by the type it is declared as. So the hint of
// such a selector carries a hash of the type's name (hintTyped), and a
// query sets aside the candidates whose type is none of the types that
// may carry the member (memberCarriers), without decoding their files.

// hintTypeBits hold a typed selector's type hash, where a selector's
// import index is.
const (
	hintTypeShift = hintImpShift
	hintTypeBits  = hintImpBits
)

// typeHash is a type name's hint bits: equal names hash alike.
func typeHash(name string) uint64 {
	h := fnv.New32a()
	h.Write([]byte(name))
	// 0 marks a chained selector's hint (see chainID).
	return max(1, uint64(h.Sum32())&(1<<hintTypeBits-1))
}

// varType is a typed selector's qualifier's type, as qualifierType finds
// it: its base name and what qualifies it where it is written ("" when
// nothing does). mixed says that its declarations qualify it differently.
type varType struct {
	name, qual string
	mixed      bool
}

// qualifierType returns the type of what a selector's plain qualifier
// names, when the file alone settles it as the resolver
// looks it up: in the innermost scope around the reference that declares
// the name (inside a body: the file's scope holds package-level names,
// which other files share), every definition so named is a parameter or
// variable declared before the reference, all of one type. The type is
// the written one (not an anonymous struct, not a type parameter of the
// file), or else one that the variable's value spells: an assertion
// `x.(*T)`, a composite literal `&T{}`, `new(T)`.
func (h *fileHinter) qualifierType(ref analysis.Ref) (varType, bool) {
	q := ref.Qualifier
	if q == "" || strings.Contains(q, ".") || !isName(q) {
		return varType{}, false
	}
	vt, _, ok := h.typedAt(q, ref.Scope, ref.Span.Start)
	return vt, ok
}

// typedAt is qualifierType for the name q looked up from scope at offset
// at; generic also says whether a declaration's type has type arguments.
func (h *fileHinter) typedAt(q string, scope int32, at int) (vt varType, generic, ok bool) {
	defs, ok := h.localDefs(q, scope, at)
	if !ok {
		return varType{}, false, false
	}
	for k, i := range defs {
		spelling := typeSpelling(h.f.Defs[i])
		t, qual := baseTypeName(spelling), typeQualifier(spelling)
		if t == "" || k > 0 && t != vt.name {
			return varType{}, false, false
		}
		vt.mixed = vt.mixed || k > 0 && qual != vt.qual
		vt.name, vt.qual = t, qual
		generic = generic || strings.Contains(spelling, "[")
	}
	// A value of a type parameter has its constraint's members. A
	// qualified type is never one (a file's type parameter T kept
	// every t.Fatalf of testing.T's from its hint).
	return vt, generic, vt.qual != "" || !h.typeParams[vt.name]
}

// localDefs returns the definitions named q in the innermost scope around
// offset at (from scope out) that declares the name, when every one is a
// parameter or variable declared in a body before at.
func (h *fileHinter) localDefs(q string, scope int32, at int) ([]int32, bool) {
	f := h.f
	if h.scoped == nil {
		h.scoped, h.typeParams = map[scopedName][]int32{}, map[string]bool{}
		for i, d := range f.Defs {
			k := scopedName{d.Scope, d.Name}
			h.scoped[k] = append(h.scoped[k], int32(i))
			if d.Kind == analysis.KindTypeParameter {
				h.typeParams[d.Name] = true
			}
		}
	}
	for s := scope; s > 0 && int(s) < len(f.Scopes); s = f.Scopes[s].Parent {
		defs := h.scoped[scopedName{s, q}]
		if len(defs) == 0 {
			if o := f.Scopes[s].Def; o != analysis.None && int(o) < len(f.Defs) && (f.Defs[o].Kind.IsType() || f.Defs[o].Receiver != "") {
				return nil, false // the resolver looks among its members first
			}
			continue
		}
		for _, i := range defs {
			d := f.Defs[i]
			if d.Kind != analysis.KindParameter && d.Kind != analysis.KindVariable || !DeclaredInBody(f, i) ||
				d.NameSpan.Start > at || d.FullSpan.Contains(at) {
				return nil, false
			}
		}
		return defs, true
	}
	return nil, false
}

// Most selectors that qualifierType cannot type are on variables set from
// another's members: `v_0 := v.Args[0]`, `p := s.pp.Prog(as)`, `for _, b
// := range f.Blocks`, `x := v_0`, with v, s and f of written types. Such a
// variable's type follows from its root's type and the chain alone (the
// resolver follows the chain through members, which no scope shadows), so
// every selector on one in a folder resolves alike too: at the standard
// library's cold start, 440 of the 1,390 unresolved candidates of obj.Prog's
// Pos were v_0.Pos in the generated rewrite files.

// maxChainVars bounds the variables a chain goes through (x := v_0, v_0 :=
// v.Args[0]).
const maxChainVars = 4

// qualifierChain returns the root type and the chain of a selector's plain
// qualifier that qualifierType cannot type: every declaration of it (found
// as qualifierType finds them) is valued by the same chain of selectors,
// calls and index expressions from a variable of a written, non-generic
// type, or from another such variable. A generic type's members have types
// that depend on its arguments, so its chains are not followed.
func (h *fileHinter) qualifierChain(ref analysis.Ref) (varType, string, bool) {
	q := ref.Qualifier
	if q == "" || strings.Contains(q, ".") || !isName(q) {
		return varType{}, "", false
	}
	return h.chainAt(q, ref.Scope, ref.Span.Start, maxChainVars)
}

func (h *fileHinter) chainAt(q string, scope int32, at int, depth int) (root varType, chain string, ok bool) {
	defs, ok := h.localDefs(q, scope, at)
	if !ok || depth == 0 {
		return varType{}, "", false
	}
	for k, i := range defs {
		d := h.f.Defs[i]
		from, rest, ok := splitChain(d.Value)
		if !ok || d.TypeName != "" {
			return varType{}, "", false
		}
		rt, generic, ok := h.typedAt(from, d.Scope, d.NameSpan.Start)
		if ok && generic {
			return varType{}, "", false
		}
		if !ok {
			var rc string
			if rt, rc, ok = h.chainAt(from, d.Scope, d.NameSpan.Start, depth-1); !ok {
				return varType{}, "", false
			}
			rest = rc + rest
		}
		if k > 0 && (rt != root || rest != chain) {
			return varType{}, "", false
		}
		root, chain = rt, rest
	}
	return root, chain, true
}

// splitChain splits a variable's value into the name it starts from and
// the chain after it: selectors, emptied calls `()` and index expressions
// `[]`, and a call's other result `#1`. ok is false for any other value
// (an assertion's or a literal's type is looked up in the file's scope).
func splitChain(v string) (from, rest string, ok bool) {
	end := 0
	for end < len(v) && (v[end] == '_' || isAlnum(v[end])) {
		end++
	}
	from, rest = v[:end], v[end:]
	if !isName(from) {
		return "", "", false
	}
	chain, result, multi := strings.Cut(rest, "#")
	if multi && (result == "" || strings.Trim(result, "0123456789") != "" || !strings.HasSuffix(chain, "()")) {
		return "", "", false
	}
	for i := 0; i < len(chain); {
		switch {
		case strings.HasPrefix(chain[i:], "()"), strings.HasPrefix(chain[i:], "[]"):
			i += 2
		case chain[i] == '.':
			j := i + 1
			for j < len(chain) && (chain[j] == '_' || isAlnum(chain[j])) {
				j++
			}
			if j == i+1 {
				return "", "", false
			}
			i = j
		default:
			return "", "", false
		}
	}
	return from, rest, true
}

func isAlnum(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// chainID is a chained selector's group identity where a typed selector's
// type's second hash is (its type hash is 0).
func chainID(root varType, chain string) uint64 {
	return typeID(root.qual + "." + root.name + "\x00" + chain)
}

// typeSpelling is a variable's type as its declaration spells it, the
// way the resolver reads it: its written type, or else the type its value
// asserts, constructs or allocates; "" when neither says.
func typeSpelling(d analysis.Def) string {
	if d.TypeName != "" {
		if analysis.GoStructLiteral(d.TypeName) {
			return ""
		}
		return d.TypeName
	}
	v := d.Value
	if v == "" || strings.ContainsAny(v, "#\n") || strings.HasPrefix(v, "(") {
		return ""
	}
	if name, ok := strings.CutSuffix(strings.TrimPrefix(v, "&"), "{}"); ok {
		if !isName(strings.SplitN(name, "[", 2)[0]) {
			return ""
		}
		return name
	}
	if !strings.HasSuffix(v, ")") || strings.HasPrefix(v, "*") || strings.HasPrefix(v, "&") {
		return ""
	}
	open := matching(v, len(v)-1)
	if open <= 0 {
		return ""
	}
	inner := v[open+1 : len(v)-1]
	if base := v[:open]; base == "new" || strings.HasSuffix(base, ".") && isName(strings.TrimSuffix(base, ".")) {
		if strings.HasPrefix(strings.TrimLeft(inner, "*"), "struct") || inner == "type" {
			return ""
		}
		return inner
	}
	return ""
}

// inTypeDecl reports whether a definition, or one around it, is a type
// declared as another type (KindTypeAlias).
func (h *fileHinter) inTypeDecl(d int32) bool {
	for ; d != analysis.None && int(d) < len(h.f.Defs); d = h.f.Defs[d].Container {
		if h.f.Defs[d].Kind == analysis.KindTypeAlias {
			return true
		}
	}
	return false
}

// hintedMember is ReferenceCandidates' certain list for a Go field or
// method: pruned by folder (goReachers), then by the typed selectors'
// hints. ok is false when the workspace keeps no hints or which types may
// carry the member cannot be told.
func (r *Resolver) hintedMember(def DefID, f *analysis.FileFacts) ([]RefID, bool) {
	h, ok := r.ws.(RefHinter)
	if !ok || f.Lang != "go" {
		return nil, false
	}
	carriers, ok := r.memberCarriers(h, f, def)
	if !ok {
		return nil, false
	}
	refs, reach := r.hintedReachers(h, def, f)
	var out []RefID
	for _, ref := range refs {
		if reach != nil && !reach[filepath.Dir(ref.Path)] {
			continue
		}
		switch ref.Hint & (1<<hintKindBits - 1) {
		case hintTyped:
			if t := ref.Hint >> hintTypeShift & (1<<hintTypeBits - 1); t != 0 && !carriers[t] {
				continue // a member of a type that cannot carry def
			}
		case hintBare:
			if ref.Hint&hintPlainScopes != 0 {
				// Named bare, a Go method is never found (a call Run() is
				// a function's), nor a field outside a scope that looks
				// through a type's members: a literal's keys are
				// qualified by its type (T{Pos: 1}).
				continue
			}
			if ref.Hint&hintReceiver != 0 && !carriers[ref.Hint>>hintTypeShift&(1<<hintTypeBits-1)] {
				continue // inside a method of a type that cannot carry def
			}
		}
		out = append(out, ref.RefID)
	}
	return out, true
}

// declaredAs reports whether a type declared as typeName may have the
// members of the types named s, as goUnderlying looks them up: through
// the type that typeName's base name names (`B`, `*p.B`, `B[int]`) or,
// for a union, through its arms. A type that merely mentions s
// (`func(F)`, `[]F`, `map[K]F`) has none of its members: testing.F's Add
// collected over 50 such types by name before, past maxCarriers, and no
// candidate of Add was set aside.
func declaredAs(typeName, s string) bool {
	if strings.Contains(typeName, "|") {
		return strings.Contains(typeName, s)
	}
	return baseTypeName(typeName) == s
}

// A typed selector settles (hintSettled) when its type does not depend on
// its file beyond its folder: a type of the file's own package, or one
// that the file's one import so named qualifies, as a settled selector's
// import. Every x.Name of one folder, role and type then resolves alike
// (see typedSettlesAs): t.Fatalf over thousands of test files is one
// resolution a folder, and fewer once the type's import settles it
// everywhere. Its hint's upper half holds the type's import (its index +
// 1, 0 for its own package's) and a second hash of its name, so that two
// types sharing a group are as unlikely as two files sharing a content
// hash (38 bits of name with typeHash).
const (
	hintTypeImpShift = 32
	hintTypeImpBits  = 10
	hintTypeIDShift  = hintTypeImpShift + hintTypeImpBits
	hintTypeIDBits   = 64 - hintTypeIDShift
)

// typeID is a type name's second hash, beside typeHash.
func typeID(name string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(name))
	return h.Sum64() >> (64 - hintTypeIDBits)
}

// typeSettles returns the import a typed selector's type is qualified by
// (its index + 1, or 0 for a type of the file's package), when that type
// resolves as in every file of the folder: for a type of the package,
// nothing so named imported or declared in the file and no dot import
// (see bareSettles); for a qualified one, the qualifier declared nowhere
// in the file, naming one import by its path's last element, and
// lower-case if the file has a dot import.
func (h *fileHinter) typeSettles(t varType) (int, bool) {
	if t.mixed {
		return 0, false
	}
	if t.qual == "" {
		// A file declaring the type finds it in its own scope, with
		// another confidence than the package's other files.
		return 0, h.bareSettles(t.name)
	}
	// A dot import brings in exported names only (goDotImported).
	if h.dot >= 0 && exported(t.qual) || h.declares(t.qual) {
		return 0, false
	}
	k := -1
	for i, imp := range h.f.Imports {
		if t.qual != imp.Path && t.qual != goImportName(imp) {
			continue
		}
		if k >= 0 {
			return 0, false
		}
		k = i
	}
	if k < 0 || k+1 >= 1<<hintTypeImpBits {
		return 0, false
	}
	imp := h.f.Imports[k]
	if imp.Alias != "" || imp.Wildcard || imp.Name != path.Base(imp.Path) || strings.HasPrefix(imp.Path, ".") || t.qual != goImportName(imp) {
		return 0, false
	}
	return k + 1, true
}

// typedSettled reports whether a hint is a settled typed selector's, and
// returns its type's identity in its group's key (never 0).
func typedSettled(hint uint64) (uint64, bool) {
	if hint&(1<<hintKindBits-1) != hintTyped || hint&hintSettled == 0 {
		return 0, false
	}
	return hint>>hintTypeShift&(1<<hintTypeBits-1) | hint>>hintTypeIDShift<<hintTypeBits | 1<<63, true
}
