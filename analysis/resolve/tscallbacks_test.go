package resolve

import (
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

func TestCallbackContext(t *testing.T) {
	callee, arg, param, ok := callbackContext("=>a.b().map#1#2")
	if !ok || callee != "a.b().map" || arg != 1 || param != 2 {
		t.Errorf("got %q %d %d %v", callee, arg, param, ok)
	}
	for _, v := range []string{"", "xs.map", "=>#1#2", "=>f#x#0", "=>f#1"} {
		if _, _, _, ok := callbackContext(v); ok {
			t.Errorf("%q: want no context", v)
		}
	}
}

func TestDeclaredParamTypes(t *testing.T) {
	m := analysis.Def{Kind: analysis.KindMethod,
		Signature: "map<U extends (x: T) => void>(callbackfn: (value: T, index: number) => U, thisArg?: any, ...rest: T[]): U[];"}
	if got, want := declaredParamTypes(m), []string{"(value: T, index: number) => U", "any", ""}; !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestFunctionParamType(t *testing.T) {
	cases := []struct {
		t     string
		param int
		want  string
	}{
		{"((value: T) => R | PromiseLike<R>) | undefined | null", 0, "T"},
		{"(a: A, b: Map<K, V>) => void", 1, "Map<K, V>"},
		{"((t: Ctx) => void) | ((t: Ctx) => Promise<void>)", 0, "Ctx"},
		{"((t: A) => void) | ((t: B) => void)", 0, ""}, // they disagree
		{"Options", 0, ""},
		{"(a: A) => void", 1, ""},
	}
	for _, c := range cases {
		if got, _ := functionParamType(c.t, c.param); got != c.want {
			t.Errorf("functionParamType(%q, %d) = %q, want %q", c.t, c.param, got, c.want)
		}
	}
}

func TestTypeArgsAndSubstitution(t *testing.T) {
	for in, want := range map[string][]string{"Foo[]": {"Foo"}, "readonly Foo[]": {"Foo"}, "Array<Foo>": {"Foo"},
		"Map<string, Bar<X>>": {"string", "Bar<X>"}, "Foo[] | undefined": {"Foo"}, "Foo": nil} {
		if got := tsTypeArgs(in); !slices.Equal(got, want) {
			t.Errorf("tsTypeArgs(%q) = %q, want %q", in, got, want)
		}
	}
	if got, ok := substituteWords("readonly T[]", []string{"T"}, []string{"Item"}); !ok || got != "readonly Item[]" {
		t.Errorf("got %q %v", got, ok)
	}
	if _, ok := substituteWords("Map<K, V>", []string{"K", "V"}, []string{"string"}); ok {
		t.Error("V has no argument: want no substitution")
	}
	if !mentionsAny("Promise<T>", []string{"T"}) || mentionsAny("ns.T", []string{"T"}) {
		t.Error("mentionsAny")
	}
}
