package kotlin

import "github.com/kast-dev/kast/analysis/syntax"

// hasVararg reports whether a parameter's modifiers hold `vararg`.
func hasVararg(mods syntax.Node) bool {
	if !mods.Valid() {
		return false
	}
	for _, m := range mods.NamedChildren() {
		if m.Type() == "parameter_modifier" && m.Text() == "vararg" {
			return true
		}
	}
	return false
}

// varargType is the type a vararg parameter of element type t has inside
// its function: a primitive's own array class, else Array<out T>.
func varargType(t string) string {
	switch t {
	case "":
		return ""
	case "Int", "Long", "Short", "Byte", "Char", "Boolean", "Float", "Double",
		"UInt", "ULong", "UShort", "UByte":
		return t + "Array"
	}
	return "Array<out " + t + ">"
}
