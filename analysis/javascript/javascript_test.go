package javascript

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `import React from 'react';
import { helper as h } from './util.js';
/** A does things. */
class A extends mixin(B) {
  #priv = 1;
  static s = 2;
  m(a, b = 1, ...rest) { this.#priv++; return h(a, rest); }
}
class C extends A { run() { return new A().m(1); } }
const f = function named(x) { return x; };
export default function main({ p, q }) { return <Comp prop={p}><div>{q}</div></Comp>; }
const {a: {b: deep}} = o;
try { f(1); } catch (err) { console.error(err); }
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Defs: []string{"class A", "field A.#priv", "field A.s", "method A.m", "parameter A.m.a", "parameter A.m.b",
				"parameter A.m.rest", "class C", "method C.run", "function f", "parameter f.x", "function main",
				"parameter main.p", "parameter main.q", "variable deep", "variable err"},
			Refs: []string{"import react.React", "import ./util.js.helper", "call mixin", "read B", "read|write this.#priv", "call h",
				"read rest", "call A", "call new A().m", "read x", "call Comp", "read q", "call f",
				"call console.error", "read err", "inheritance A"},
			Absent:     []string{"call div", "read prop", "variable a"},
			Calls:      []string{"A.m -> h", "C.run -> A", "C.run -> m", "main -> Comp", "<top> -> f"},
			Supertypes: []string{"C <: A"},
			Imports:    []string{"react/React", "./util.js/helper as h"},
		}},
		{"re-exports and constructor fields", `export { a as b, c } from "./m.js";
export * from "./n.js";
class K { constructor(x) { this.x = x; this.x = 2; } }
`, ft.Expect{
			Defs:    []string{"class K", "constructor K.K", "parameter K.K.x", "field K.x"},
			Refs:    []string{"import ./m.js.a", "import ./m.js.c", "read x", "write this.x"},
			Imports: []string{"./m.js/a as b", "./m.js/c as c", "./n.js.*"},
		}},
		{"syntax error", "function broken() { return (1 + ; }\n", ft.Expect{Defs: []string{"function broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "a.js", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
	f, _ := Extract(context.Background(), "a.js", []byte(sample))
	if a := ft.DefNamed(t, f, "A"); a.Doc != "A does things." || a.Signature != "class A extends mixin(B)" {
		t.Errorf("A = %+v", a)
	}
}
