package resolve

import (
	"path"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/kast-dev/kast/analysis"
)

// Python's static conditions (see analysis/python's flow.go): a block
// under `if sys.version_info < (3, 10):` or in the else of `if
// TYPE_CHECKING:` never runs on the project's interpreter; type checkers
// treat it as unreachable, so kast answers nothing there and takes no
// declaration made there.

// pythonUnreachable reports whether offset of f lies in a block one of
// whose static conditions is false for the project's interpreter.
func (r *Resolver) pythonUnreachable(f *analysis.FileFacts, offset int) bool {
	if f == nil || f.Lang != "python" {
		return false
	}
	for _, c := range f.Casts {
		if c.Name == "" && c.Span.Contains(offset) {
			if v, known := r.pythonCondition(c.Type); known && !v {
				return true
			}
		}
	}
	return false
}

// PythonUnreachable reports whether offset of a Python file lies in a
// block whose static condition fails for the project's interpreter: a
// stub's `if sys.version_info < (3, 9):` declarations are none of its
// module's names.
func (r *Resolver) PythonUnreachable(file string, offset int) bool {
	return r.pythonUnreachable(r.file(file), offset)
}

// withoutUnreachable drops Python candidates declared in unreachable
// blocks: `def f` under `if sys.version_info < (3, 8):` is not the f the
// interpreter has.
func (r *Resolver) withoutUnreachable(c []Candidate) []Candidate {
	drop := func(x Candidate) bool {
		if ext := path.Ext(x.Def.Path); ext != ".py" && ext != ".pyi" {
			return false
		}
		g := r.file(x.Def.Path)
		return g != nil && int(x.Def.Index) < len(g.Defs) && r.pythonUnreachable(g, g.Defs[x.Def.Index].NameSpan.Start)
	}
	if !slices.ContainsFunc(c, drop) {
		return c // the common case, spared a copy of thousands of guesses
	}
	out := c[:0:0]
	for _, x := range c {
		if !drop(x) {
			out = append(out, x)
		}
	}
	return out
}

// pythonCondition evaluates a static condition; known is false when kast
// cannot tell (the block is then reachable).
func (r *Resolver) pythonCondition(cond string) (v, known bool) {
	cond = strings.TrimSpace(cond)
	if inner, ok := strings.CutPrefix(cond, "not "); ok {
		v, known = r.pythonCondition(inner)
		return !v, known
	}
	if strings.HasPrefix(cond, "(") && strings.HasSuffix(cond, ")") && closingParen(cond) == len(cond)-1 {
		return r.pythonCondition(cond[1 : len(cond)-1])
	}
	for _, op := range []string{" or ", " and "} {
		if parts := splitOutsideBrackets(cond, op); len(parts) > 1 {
			or := op == " or "
			v, known = !or, true
			for _, p := range parts {
				pv, pk := r.pythonCondition(p)
				switch {
				case pk && pv == or:
					return or, true // short-circuits whatever the others are
				case !pk:
					known = false
				}
			}
			return v, known
		}
	}
	if cond == "TYPE_CHECKING" || strings.HasSuffix(cond, ".TYPE_CHECKING") {
		return true, true
	}
	if cond == "False" { // after a raise or return
		return false, true
	}
	if m := versionCheck.FindStringSubmatch(cond); m != nil {
		have := r.pythonVersion()
		if have == nil {
			return false, false
		}
		var want []int
		for _, s := range strings.Split(m[3], ",") {
			if s = strings.TrimSpace(s); s != "" {
				n, err := strconv.Atoi(s)
				if err != nil {
					return false, false
				}
				want = append(want, n)
			}
		}
		switch sel := m[1]; {
		case sel == "[0]" || sel == ".major":
			have = have[:1]
		case sel != "": // [:2]: the first two
			if n, err := strconv.Atoi(strings.Trim(sel, "[: ]")); err == nil && n < len(have) {
				have = have[:n]
			}
		}
		return compareHolds(compareInts(have, want), m[2]), true
	}
	if m := platformCheck.FindStringSubmatch(cond); m != nil {
		p := pythonPlatform()
		switch {
		case m[1] == ".startswith(":
			return strings.HasPrefix(p, m[3]), true
		case m[2] == "==":
			return p == m[3], true
		case m[2] == "!=":
			return p != m[3], true
		}
	}
	return false, false
}

var (
	// sys.version_info >= (3, 10), sys.version_info[:2] < (3, 8),
	// sys.version_info[0] == 3 (the number alone or in a tuple).
	versionCheck = regexp.MustCompile(`^sys\.version_info(\[0\]|\.major|\[:\s*\d\s*\])?\s*(<=|>=|<|>|==|!=)\s*\(?([\d,\s]+)\)?$`)
	// sys.platform == "win32", sys.platform.startswith("linux").
	platformCheck = regexp.MustCompile(`^sys\.platform(\.startswith\(|\s*(==|!=)\s*)["']([^"']*)["']\)?$`)
)

// pythonVersion is the version the project's type checker is configured
// for (see pythonConfiguredVersion), else that of the interpreter whose
// built-in names kast indexed: the folder of its builtins.pyi stub is named for it
// ("3.11.7-k2"), else the standard library's folder (python3.11); nil
// when neither says.
func (r *Resolver) pythonVersion() []int {
	if v := r.pythonConfiguredVersion(); v != nil {
		return v
	}
	var stdlib []int
	for _, e := range r.defs("object") {
		if e.Lang != "python" || path.Base(e.Path) != "builtins.pyi" {
			continue
		}
		v, _, _ := strings.Cut(path.Base(path.Dir(e.Path)), "-")
		if n := dottedInts(v); len(n) >= 2 {
			return n
		}
	}
	for _, p := range r.pythonModules()["os"] {
		if dir := path.Base(path.Dir(p)); strings.HasPrefix(dir, "python3.") {
			stdlib = dottedInts(strings.TrimPrefix(dir, "python"))
		}
	}
	return stdlib
}

func dottedInts(s string) []int {
	var out []int
	for _, part := range strings.Split(s, ".") {
		n, err := strconv.Atoi(part)
		if err != nil {
			return nil
		}
		out = append(out, n)
	}
	return out
}

// pythonPlatform is sys.platform on this machine, which runs the
// project's interpreter.
func pythonPlatform() string {
	switch runtime.GOOS {
	case "windows":
		return "win32"
	case "darwin":
		return "darwin"
	}
	return runtime.GOOS
}

// compareInts compares version tuples as Python compares tuples.
func compareInts(a, b []int) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if a[i] != b[i] {
			if a[i] < b[i] {
				return -1
			}
			return 1
		}
	}
	switch {
	case len(a) < len(b):
		return -1
	case len(a) > len(b):
		return 1
	}
	return 0
}

func compareHolds(c int, op string) bool {
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	case "==":
		return c == 0
	}
	return c != 0
}

// closingParen is the index of the parenthesis closing s[0], or -1.
func closingParen(s string) int {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			if depth--; depth == 0 {
				return i
			}
		}
	}
	return -1
}

// splitOutsideBrackets splits s at sep outside brackets.
func splitOutsideBrackets(s, sep string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		default:
			if depth == 0 && strings.HasPrefix(s[i:], sep) {
				parts = append(parts, s[start:i])
				start = i + len(sep)
				i += len(sep) - 1
			}
		}
	}
	return append(parts, s[start:])
}
