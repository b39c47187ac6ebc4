package resolve

import (
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// The ways from a callee's parameter type to the type of a function's
// parameter written inside the argument (ky's hooks: a member's member's
// element), from a parameter's type to a destructured name's, and from a
// receiver's class to the type arguments it gives its supertype.

// typeAlong follows path from the written type t: a name to the type
// written for that member, "[]" to an element's type.
func (r *Resolver) typeAlong(t contextType, path []string, depth int) (contextType, bool) {
	for _, step := range path {
		if r.tooDeep(t.file.Lang, depth) {
			return t, false
		}
		depth++
		if step == "[]" {
			elem, ok := tsElementType(t.text)
			if !ok {
				return t, false
			}
			t.text = elem
			continue
		}
		next, ok := r.memberTypeText(t, step, depth)
		if !ok {
			return t, false
		}
		t = next
	}
	return t, true
}

// memberTypeText is the type written for member name of the type t.
func (r *Resolver) memberTypeText(t contextType, name string, depth int) (contextType, bool) {
	if m, ok := tsInlineMemberType(t.text, name); ok {
		t.text = m // `retry?: {shouldRetry?: (state: S) => boolean}`
		return t, true
	}
	for _, c := range best(r.typesNamed(t.file, t.text, t.scope, t.at, depth+1)) {
		if c.Confidence < r.threshold {
			continue
		}
		for _, m := range best(r.members(c.Def, name, analysis.RoleRead, c.Confidence, depth+1)) {
			if g, d, ok := r.entry(m.Def); ok && !d.Kind.IsType() && d.TypeName != "" && m.Confidence >= r.threshold {
				return contextType{g, d.TypeName, d.Scope, d.NameSpan}, true
			}
		}
	}
	return t, false
}

// tsElementType is the element type of an array type: T of `T[]`,
// `readonly T[]`, `Array<T>`, `ReadonlyArray<T>` (or of such a type or
// undefined).
func tsElementType(t string) (string, bool) {
	arm, ok := tsDefinedArm(t)
	if !ok {
		return "", false
	}
	a := strings.TrimSpace(strings.TrimPrefix(arm, "readonly "))
	if elem, ok := strings.CutSuffix(a, "[]"); ok {
		elem = strings.TrimSpace(elem)
		if strings.HasPrefix(elem, "(") && tsClosing(elem, 0) == len(elem)-1 {
			elem = strings.TrimSpace(elem[1 : len(elem)-1])
		}
		return elem, elem != ""
	}
	for _, generic := range []string{"Array<", "ReadonlyArray<"} {
		if strings.HasPrefix(a, generic) && tsClosing(a, len(generic)-1) == len(a)-1 {
			return strings.TrimSpace(a[len(generic) : len(a)-1]), true
		}
	}
	return "", false
}

// tsIndexedAlong is the indexed access type of the members keys of t,
// one after the other: `State['response']`.
func tsIndexedAlong(t string, keys []string) (string, bool) {
	for _, k := range keys {
		if !isName(k) {
			return "", false
		}
		arm, ok := tsDefinedArm(t)
		if !ok {
			return "", false
		}
		t = arm
		if !isName(strings.ReplaceAll(t, ".", "")) && !strings.HasSuffix(t, "]") && !strings.HasSuffix(t, ">") {
			t = "(" + t + ")"
		}
		t += "['" + k + "']"
	}
	return t, true
}

// tsInlineMemberType is the type an object type literal `{ a?: A; b(x: X): B }`
// writes for its member key: A for a, `(x: X) => B` for b.
func tsInlineMemberType(t, key string) (string, bool) {
	body, ok := tsDefinedArm(t)
	if !ok {
		return "", false
	}
	if !strings.HasPrefix(body, "{") || tsClosing(body, 0) != len(body)-1 {
		return "", false
	}
	for _, group := range tsSplit(body[1:len(body)-1], ';') {
		for _, m := range tsSplit(group, ',') {
			m = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(m), "readonly "))
			rest, ok := strings.CutPrefix(m, key)
			if !ok {
				continue
			}
			rest = strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(rest), "?"))
			switch {
			case strings.HasPrefix(rest, ":"):
				return strings.TrimSpace(rest[1:]), true
			case strings.HasPrefix(rest, "("), strings.HasPrefix(rest, "<"):
				// A method: its function type.
				open := paramListStart(rest)
				end := tsClosing(rest, max(open, 0))
				if open < 0 || end < 0 {
					return "", false
				}
				result, ok := strings.CutPrefix(strings.TrimSpace(rest[end+1:]), ":")
				if !ok {
					return "", false
				}
				return rest[:end+1] + " => " + strings.TrimSpace(result), true
			}
		}
	}
	return "", false
}

// tsElementMemberTypes are the written types of a name a for-of loop's
// destructuring binds, whose Value is "xs[].key": the member key of the
// element type of each type written for xs.
func tsElementMemberTypes(written []string, keys []string) []string {
	var out []string
	for _, t := range written {
		if e := collectionElement(t); e != "" {
			if m, ok := tsIndexedAlong(e, keys); ok {
				out = append(out, m)
			}
		}
	}
	return out
}

// tsDefinedArm is t without the undefined and null of a union, when one
// type is left (the arrows of function types inside are no brackets).
func tsDefinedArm(t string) (string, bool) {
	var kept []string
	for _, part := range tsSplit(t, '|') {
		if part = strings.TrimSpace(part); part != "" && part != "undefined" && part != "null" {
			kept = append(kept, part)
		}
	}
	if len(kept) != 1 {
		return "", false
	}
	return kept[0], true
}

// supertypeArgs are the type arguments the receiver's class or interface
// gives the supertype named owner where it extends it: zod 3's `class
// ZodString extends ZodType<string, ZodStringDef, string>` makes the
// Output of ZodType's refine string.
func (r *Resolver) supertypeArgs(f *analysis.FileFacts, qref analysis.Ref, owner string, depth int) []string {
	for _, c := range best(r.receiverTypes(f, qref, depth)) {
		if _, d, ok := r.entry(c.Def); ok && c.Confidence >= r.threshold {
			if w := writtenSupertype(d.Signature, owner); w != "" {
				return tsTypeArgs(w)
			}
		}
	}
	return nil
}
