package servertest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"
)

// partialKey in an expected object, or as the last element of an expected
// array, lets the value have more than the transcript lists.
const partialKey = "$..."

func decodeJSON(b []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, fmt.Errorf("invalid JSON (%v): %s", err, b)
	}
	if d.More() {
		return nil, fmt.Errorf("more than one JSON value: %s", b)
	}
	return v, nil
}

// matchers are the placeholders an expectation may use for a whole string.
var matchers = map[string]func(v any) bool{
	"ANY":    func(any) bool { return true },
	"STRING": func(v any) bool { _, ok := v.(string); return ok },
	"NUMBER": func(v any) bool { _, ok := v.(json.Number); return ok },
	"BOOL":   func(v any) bool { _, ok := v.(bool); return ok },
	"UUID": func(v any) bool {
		s, ok := v.(string)
		return ok && uuidPattern.MatchString(s)
	},
	"TIME": func(v any) bool {
		s, ok := v.(string)
		if !ok {
			return false
		}
		_, err := time.Parse(time.RFC3339Nano, s)
		return err == nil
	},
	"DURATION": func(v any) bool {
		switch v := v.(type) {
		case json.Number:
			f, err := v.Float64()
			return err == nil && f >= 0
		case string:
			d, err := time.ParseDuration(v)
			return err == nil && d >= 0
		}
		return false
	},
	"HASH": func(v any) bool {
		s, ok := v.(string)
		return ok && hashPattern.MatchString(s)
	},
	"PATH": func(v any) bool {
		s, ok := v.(string)
		return ok && filepath.IsAbs(s)
	},
}

var (
	uuidPattern = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	hashPattern = regexp.MustCompile(`^[0-9a-fA-F]{16,}$`)
	// identPattern is a variable or matcher name after a $.
	identPattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*`)
)

// expand replaces the variables in the strings of a value to send.
func expand(v any, vars map[string]any) (any, error) {
	switch v := v.(type) {
	case string:
		if name, ok := strings.CutPrefix(v, "$"); ok && identPattern.FindString(name) == name {
			if val, ok := vars[name]; ok {
				return val, nil
			}
		}
		return splice(v, vars)
	case map[string]any:
		for k, x := range v {
			e, err := expand(x, vars)
			if err != nil {
				return nil, err
			}
			v[k] = e
		}
	case []any:
		for i, x := range v {
			e, err := expand(x, vars)
			if err != nil {
				return nil, err
			}
			v[i] = e
		}
	}
	return v, nil
}

// splice expands $name and $$ inside a string. A $ not followed by a name
// (as in "$/progress") stays as it is.
func splice(s string, vars map[string]any) (string, error) {
	if !strings.Contains(s, "$") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '$')
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		s = s[i+1:]
		if strings.HasPrefix(s, "$") {
			b.WriteByte('$')
			s = s[1:]
			continue
		}
		name := identPattern.FindString(s)
		if name == "" {
			b.WriteByte('$')
			continue
		}
		val, ok := vars[name]
		if !ok {
			if _, isMatcher := matchers[name]; isMatcher {
				return "", fmt.Errorf("$%s stands for a whole string, and only in an expectation: %q", name, "$"+s)
			}
			return "", fmt.Errorf("unknown variable $%s (write $$ for a literal $)", name)
		}
		switch val := val.(type) {
		case string:
			b.WriteString(val)
		case json.Number:
			b.WriteString(val.String())
		default:
			return "", fmt.Errorf("$%s is %v, not a string: it cannot go inside one", name, val)
		}
		s = s[len(name):]
	}
}

// spliceQuoted expands the bound string variables in a regexp, quoted; any
// other $ is the regexp's own.
func spliceQuoted(re string, vars map[string]any) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(re, '$')
		if i < 0 {
			b.WriteString(re)
			return b.String()
		}
		b.WriteString(re[:i+1])
		re = re[i+1:]
		name := identPattern.FindString(re)
		if v, ok := vars[name].(string); ok && name != "" {
			s := b.String()
			b.Reset()
			b.WriteString(s[:len(s)-1])
			b.WriteString(regexp.QuoteMeta(v))
			re = re[len(name):]
		}
	}
}

// match compares got with the expectation want, binding the captures of
// want in vars. It returns both sides restricted to what want lists (with
// matched placeholders shown as what they matched), for a readable diff, and
// the differences found.
func match(want, got any, vars map[string]any) (exp, act any, diffs []string) {
	m := &matcher{vars: vars}
	exp, act = m.value("", want, got)
	return exp, act, m.diffs
}

type matcher struct {
	vars  map[string]any
	diffs []string
}

func (m *matcher) fail(path, format string, args ...any) {
	if path == "" {
		path = "(the message)"
	}
	m.diffs = append(m.diffs, path+": "+fmt.Sprintf(format, args...))
}

func (m *matcher) value(path string, want, got any) (exp, act any) {
	switch w := want.(type) {
	case string:
		return m.str(path, w, got)
	case map[string]any:
		g, ok := got.(map[string]any)
		if !ok {
			m.fail(path, "want an object, got %s", compact(got))
			return want, got
		}
		return m.object(path, w, g)
	case []any:
		g, ok := got.([]any)
		if !ok {
			m.fail(path, "want an array, got %s", compact(got))
			return want, got
		}
		return m.array(path, w, g)
	}
	if !equal(want, got) {
		m.fail(path, "want %s, got %s", compact(want), compact(got))
	}
	return want, got
}

func (m *matcher) str(path, w string, got any) (exp, act any) {
	if spec, ok := strings.CutPrefix(w, "$"); ok && !strings.HasPrefix(spec, "$") {
		if re, ok := strings.CutPrefix(spec, "MATCH:"); ok {
			s, isStr := got.(string)
			re = spliceQuoted(re, m.vars)
			pattern, err := regexp.Compile(re)
			switch {
			case err != nil:
				m.fail(path, "bad $MATCH pattern: %v", err)
			case !isStr || !pattern.MatchString(s):
				m.fail(path, "want a string matching %s, got %s", re, compact(got))
			default:
				return got, got
			}
			return w, got
		}
		name, kind, capture := strings.Cut(spec, "=")
		if !capture {
			kind = name
		}
		if ok, known := matchPlaceholder(kind, got); known {
			if !ok {
				m.fail(path, "want %s, got %s", w, compact(got))
				return w, got
			}
			if capture {
				m.vars[name] = got
			}
			return got, got
		} else if capture {
			m.fail(path, "unknown matcher %s in %s", kind, w)
			return w, got
		}
		if val, ok := m.vars[spec]; ok { // "$name": a bound value of any type
			if !equal(val, got) {
				m.fail(path, "want $%s = %s, got %s", spec, compact(val), compact(got))
			}
			return val, got
		}
	}
	s, err := splice(w, m.vars)
	if err != nil {
		m.fail(path, "%v", err)
		return w, got
	}
	if got != s {
		m.fail(path, "want %s, got %s", compact(s), compact(got))
	}
	return s, got
}

// matchPlaceholder applies the matcher named kind; known is false for a
// name that is no matcher.
func matchPlaceholder(kind string, got any) (ok, known bool) {
	f, known := matchers[kind]
	if !known {
		return false, false
	}
	return f(got), true
}

func (m *matcher) object(path string, w, g map[string]any) (exp, act any) {
	partial := false
	if _, ok := w[partialKey]; ok {
		partial = true
	}
	e, a := map[string]any{}, map[string]any{}
	for _, k := range sortedKeys(w) {
		if k == partialKey {
			continue
		}
		gv, ok := g[k]
		if !ok {
			m.fail(join(path, k), "missing")
			e[k] = w[k]
			continue
		}
		e[k], a[k] = m.value(join(path, k), w[k], gv)
	}
	for _, k := range sortedKeys(g) {
		if _, listed := w[k]; !listed && !partial {
			m.fail(join(path, k), "unexpected, = %s (add \"$...\": true to the object to allow more keys)", compact(g[k]))
			a[k] = g[k]
		}
	}
	return e, a
}

func (m *matcher) array(path string, w, g []any) (exp, act any) {
	partial := len(w) > 0 && w[len(w)-1] == partialKey
	if partial {
		w = w[:len(w)-1]
	}
	switch {
	case partial && len(g) < len(w):
		m.fail(path, "want at least %d elements, got %d", len(w), len(g))
	case !partial && len(g) != len(w):
		m.fail(path, "want %d elements, got %d", len(w), len(g))
	}
	e, a := make([]any, 0, len(w)+1), make([]any, 0, len(g))
	for i, x := range w {
		if i >= len(g) {
			e = append(e, x)
			continue
		}
		ev, av := m.value(fmt.Sprintf("%s[%d]", path, i), x, g[i])
		e, a = append(e, ev), append(a, av)
	}
	switch {
	case partial && len(g) > len(w):
		e, a = append(e, partialKey), append(a, partialKey)
	case len(g) > len(w):
		a = append(a, g[len(w):]...)
	}
	return e, a
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// equal compares JSON values semantically: numbers by value, objects
// regardless of key order.
func equal(a, b any) bool {
	switch a := a.(type) {
	case json.Number:
		bn, ok := b.(json.Number)
		if !ok {
			return false
		}
		x, okA := new(big.Float).SetString(a.String())
		y, okB := new(big.Float).SetString(bn.String())
		return okA && okB && x.Cmp(y) == 0
	case map[string]any:
		bm, ok := b.(map[string]any)
		if !ok || len(a) != len(bm) {
			return false
		}
		for k, v := range a {
			if w, ok := bm[k]; !ok || !equal(v, w) {
				return false
			}
		}
		return true
	case []any:
		bs, ok := b.([]any)
		if !ok || len(a) != len(bs) {
			return false
		}
		for i := range a {
			if !equal(a[i], bs[i]) {
				return false
			}
		}
		return true
	}
	return a == b
}

// compact is a value on one line, cut short: for messages about one field.
func compact(v any) string {
	s := canonical(v)
	if len(s) > 200 {
		return s[:200] + "…"
	}
	return s
}

// canonical is a value on one line, keys sorted.
func canonical(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

func pretty(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return b.String()
}

// lineDiff is a line diff of a and b: "-" lines only in a, "+" lines only in
// b, and up to two lines of context around each change.
func lineDiff(a, b string) string {
	x := strings.Split(strings.TrimSuffix(a, "\n"), "\n")
	y := strings.Split(strings.TrimSuffix(b, "\n"), "\n")
	// lcs[i][j] is the length of the longest common subsequence of x[i:], y[j:].
	lcs := make([][]int, len(x)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(y)+1)
	}
	for i := len(x) - 1; i >= 0; i-- {
		for j := len(y) - 1; j >= 0; j-- {
			if x[i] == y[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type line struct {
		op   byte
		text string
	}
	var lines []line
	i, j := 0, 0
	for i < len(x) || j < len(y) {
		switch {
		case i < len(x) && j < len(y) && x[i] == y[j]:
			lines = append(lines, line{' ', x[i]})
			i, j = i+1, j+1
		case i < len(x) && (j == len(y) || lcs[i+1][j] >= lcs[i][j+1]):
			lines = append(lines, line{'-', x[i]})
			i++
		default:
			lines = append(lines, line{'+', y[j]})
			j++
		}
	}
	const context = 2
	near := make([]bool, len(lines))
	for k, l := range lines {
		if l.op != ' ' {
			for d := max(0, k-context); d <= min(len(lines)-1, k+context); d++ {
				near[d] = true
			}
		}
	}
	var out strings.Builder
	skipped := false
	for k, l := range lines {
		if !near[k] {
			skipped = true
			continue
		}
		if skipped {
			out.WriteString("  …\n")
			skipped = false
		}
		fmt.Fprintf(&out, "%c %s\n", l.op, l.text)
	}
	if skipped {
		out.WriteString("  …\n")
	}
	return out.String()
}
