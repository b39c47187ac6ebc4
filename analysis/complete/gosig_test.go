package complete

import (
	"slices"
	"testing"
)

// Declarations read from the tables' signatures: parameters named in
// groups or not, variadic ones, results in parentheses or bare, a
// receiver and type parameters skipped; constants typed, untyped, or
// repeating the previous one.
func TestGoDeclValue(t *testing.T) {
	for _, tc := range []struct {
		name, detail    string
		isFunc          bool
		params, results []string
		typ, untyped    string
		implicit        bool
	}{
		{name: "Root", detail: "func (c *Command) Root() *Command", isFunc: true, results: []string{"*Command"}},
		{name: "Sprintf", detail: "func Sprintf(format string, a ...any) string", isFunc: true, params: []string{"string", "...any"}, results: []string{"string"}},
		{name: "Copy", detail: "func Copy(dst, src []byte) (n int, err error)", isFunc: true, params: []string{"[]byte", "[]byte"}, results: []string{"int", "error"}},
		{name: "Map", detail: "func Map[K comparable, V any](m map[K]V, f func(K) V) []V", isFunc: true, params: []string{"map[K]V", "func(K) V"}, results: []string{"[]V"}},
		{name: "Pipe", detail: "func Pipe() (*File, *File, error)", isFunc: true, results: []string{"*File", "*File", "error"}},
		{name: "String", detail: "String() string", isFunc: true, results: []string{"string"}},
		{name: "Short", detail: "Short string", typ: "string"},
		{name: "Nanosecond", detail: "Nanosecond Duration = 1", typ: "Duration"},
		{name: "StatusOK", detail: "StatusOK = 200", untyped: "int"},
		{name: "MethodGet", detail: `MethodGet = "GET"`, untyped: "string"},
		{name: "March", detail: "March", implicit: true},
	} {
		v := goDeclValue(tc.name, tc.detail, tc.isFunc)
		if v.isFunc != tc.isFunc || !slices.Equal(v.params, tc.params) || !slices.Equal(v.results, tc.results) ||
			v.typ != tc.typ || v.untyped != tc.untyped || v.implicit != tc.implicit {
			t.Errorf("%s: %+v", tc.detail, v)
		}
	}
}
