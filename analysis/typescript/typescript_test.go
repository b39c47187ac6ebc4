package typescript

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `import def, { a as b, c } from "./mod";
import * as ns from "../lib/ns";
/** Greeter doc. */
export class Greeter<T> extends Base implements Iface, ns.Other {
  private name: string = "x";
  static count = 0;
  constructor(public readonly id: number, name?: string) { super(); this.name = name; }
  greet(who: string): string { const msg = ` + "`${this.name} ${who}`" + `; return helper(msg, {key: who}); }
  get upper() { return this.name.toUpperCase(); }
}
interface Iface extends A { run(x: number): void; prop: string }
type Alias = Map<string, number>;
enum Color { Red, Green = 2 }
namespace NS { export const v = 1; }
function helper(s: string, opts?: Opts): string { let g = new Greeter<number>(1); g.greet(s); return s; }
export const arrow = (p: number) => helper(String(p)), other = 2;
const { k1, k2: renamed } = obj;
x = 3; obj.f = 4; x += 1;
for (const item of items) { console.log(item); }
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		tsx  bool
		src  string
		want ft.Expect
	}{
		{"declarations", false, sample, ft.Expect{
			Defs: []string{"class Greeter", "typeParameter Greeter.T", "field Greeter.name", "field Greeter.count",
				"constructor Greeter.Greeter", "field Greeter.id", "parameter Greeter.Greeter.name", "method Greeter.greet",
				"parameter Greeter.greet.who", "variable Greeter.greet.msg", "property Greeter.upper", "interface Iface",
				"method Iface.run", "field Iface.prop", "typeAlias Alias", "enum Color", "enumEntry Color.Red",
				"enumEntry Color.Green", "module NS", "constant NS.v", "function helper", "variable helper.g",
				"function arrow", "parameter arrow.p", "constant other", "variable k1", "variable renamed", "variable item"},
			Refs: []string{"write this.name", "read this.name", "call this.name.toUpperCase", "call helper", "read who",
				"call Greeter", "call g.greet", "type Opts", "type Map", "write x", "read|write x", "write obj.f",
				"call console.log", "read item", "inheritance Base", "inheritance Iface", "inheritance ns.Other",
				"inheritance A", "import ./mod.a", "import ./mod.c", "import ./mod.def", "call String"},
			Absent:     []string{"read key", "read k2", "variable Greeter.greet.key"},
			Calls:      []string{"Greeter.greet -> helper", "helper -> Greeter", "helper -> greet", "arrow -> helper", "<top> -> log"},
			Supertypes: []string{"Greeter <: Base", "Greeter <: Iface", "Greeter <: Other", "Iface <: A"},
			Imports:    []string{"./mod/def", "./mod/a as b", "./mod/c", "../lib/ns as ns"},
		}},
		{"tsx components", true, "export function App({ p }: Props) { return <Comp.Sub a={p}><Inner/><div>{p}</div></Comp.Sub>; }\n", ft.Expect{
			Defs:   []string{"function App", "parameter App.p"},
			Refs:   []string{"call Comp.Sub", "call Inner", "read p", "type Props"},
			Absent: []string{"call div", "read a"},
			Calls:  []string{"App -> Sub", "App -> Inner"},
		}},
		{"syntax error", false, "function broken() { return (1 + ; }\n", ft.Expect{Defs: []string{"function broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			extract, path := Extract, "a.ts"
			if tt.tsx {
				extract, path = ExtractTSX, "a.tsx"
			}
			f, err := extract(context.Background(), path, []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
}

func TestDefDetails(t *testing.T) {
	f, err := Extract(context.Background(), "a.ts", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if g := ft.DefNamed(t, f, "Greeter"); g.Doc != "Greeter doc." || g.Visibility != "public" || g.Signature != "class Greeter<T> extends Base implements Iface, ns.Other" {
		t.Errorf("Greeter = %+v", g)
	}
	if n := ft.DefNamed(t, f, "Greeter.name"); n.Visibility != "private" || n.TypeName != "string" {
		t.Errorf("name = %+v", n)
	}
	if g := ft.DefNamed(t, f, "helper.g"); g.TypeName != "Greeter" {
		t.Errorf("g type %q", g.TypeName)
	}
	if h := ft.DefNamed(t, f, "helper"); h.Visibility != "private" || h.TypeName != "string" {
		t.Errorf("helper = %+v", h)
	}
}
