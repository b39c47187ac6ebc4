package resolve

import "github.com/kast-dev/kast/analysis"

// ArgsFit reports whether a Kotlin or Java call whose arguments have the
// shape args (analysis.Ref.Args) can be passed to the function or
// constructor d, by count, names, defaults, varargs and a trailing lambda.
// known is false when d's signature does not show its parameters, or the
// language carries no argument shapes: nothing can then be said.
func ArgsFit(lang string, d analysis.Def, args string) (fits, known bool) {
	if !overloadLangs[lang] || !isCallable(d.Kind) || args == "" {
		return false, false
	}
	params, ok := signatureParams(d)
	if !ok {
		return false, false
	}
	parsed := parseArgs(args)
	named := false
	for i, a := range parsed {
		if a.code == "*" {
			return false, false // a spread fills any number of varargs
		}
		if a.name != "" {
			named = true
		} else if named && a.code != "^" {
			// A positional argument after a named one: rare in Kotlin, and
			// how a shape reads a named argument it could not code.
			return false, false
		}
		if a.code != "^" {
			// Only the count and names are judged here, not types.
			parsed[i].code = "_"
		}
	}
	return fitArgs(lang, params, parsed, nil).ok, true
}
