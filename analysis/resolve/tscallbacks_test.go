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

func TestCallbackSite(t *testing.T) {
	callee, arg, param, argPath, paramPath, ok := callbackSite("=>ky.post#1/hooks/afterResponse/[]#0/response")
	if !ok || callee != "ky.post" || arg != 1 || param != 0 || !slices.Equal(argPath, []string{"hooks", "afterResponse", "[]"}) || !slices.Equal(paramPath, []string{"response"}) {
		t.Errorf("got %q %d %d %q %q %v", callee, arg, param, argPath, paramPath, ok)
	}
	if _, _, _, _, _, ok := callbackSite("=>f#hooks/x#0"); ok {
		t.Error("an argument path without its index read")
	}
}

func TestTypesAlongPaths(t *testing.T) {
	for in, want := range map[string]string{"Hook[]": "Hook", "readonly (A | B)[]": "A | B", "Array<(r: R) => void> | undefined": "(r: R) => void",
		"ReadonlyArray<X>": "X", "Promise<X>": ""} {
		if got, ok := tsElementType(in); got != want || ok != (want != "") {
			t.Errorf("tsElementType(%q) = %q %v, want %q", in, got, ok, want)
		}
	}
	obj := "{ shouldRetry?: (state: S) => boolean; limit: number, methods(x: X): Y } | undefined"
	for key, want := range map[string]string{"shouldRetry": "(state: S) => boolean", "limit": "number", "methods": "(x: X) => Y", "nope": ""} {
		if got, ok := tsInlineMemberType(obj, key); got != want || ok != (want != "") {
			t.Errorf("tsInlineMemberType(%q) = %q %v, want %q", key, got, ok, want)
		}
	}
	for in, want := range map[string]string{"State": "State['a']['b']", "State | undefined": "State['a']['b']", "A & B": "(A & B)['a']['b']", "ns.State": "ns.State['a']['b']"} {
		if got, ok := tsIndexedAlong(in, []string{"a", "b"}); !ok || got != want {
			t.Errorf("tsIndexedAlong(%q) = %q, want %q", in, got, want)
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
