package golang

import (
	"context"
	"slices"
	"strings"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `// Package demo does things.
package demo

import (
	"fmt"
	str "strings"
	. "os"
)

// Greeter greets.
type Greeter struct {
	Name string
	inner
}

type Speaker interface {
	Speak(x int) string
	fmt.Stringer
}

type ID = int

const Max, Min = 1, 2

var global = &Greeter{Name: "x"}

// Hello says hello.
func (g *Greeter) Hello(who string) (string, error) {
	msg := fmt.Sprintf("%s %s", g.Name, who)
	g.Name = str.ToUpper(msg)
	var n int = 3
	n++
	for i, v := range []int{1} {
		_ = i + v
	}
	f := func(a int) int { return a }
	msg, err := helper(msg, f(n)), error(nil)
	return msg, err
}

func helper[T any](s string, n T) string {
	x := Greeter{}
	x.Hello(s)
	return s
}
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Package: "demo",
			Defs: []string{"struct Greeter", "field Greeter.Name", "field Greeter.inner", "interface Speaker",
				"method Speaker.Speak", "parameter Speaker.Speak.x", "typeAlias ID", "constant Max", "constant Min", "variable global",
				"method Hello", "parameter Hello.g", "parameter Hello.who", "variable Hello.msg", "variable Hello.n",
				"variable Hello.i", "variable Hello.v", "variable Hello.f", "parameter Hello.a", "variable Hello.err",
				"function helper", "typeParameter helper.T", "variable helper.x"},
			Refs: []string{"call fmt.Sprintf", "read g.Name", "write g.Name", "call str.ToUpper", "read|write n",
				"read i", "call helper", "call f", "write msg", "call x.Hello", "type Greeter", "type string",
				"inheritance inner", "inheritance fmt.Stringer", "write Greeter{}.Name", "import fmt", "import strings"},
			Absent:     []string{"read Name", "variable Hello._"},
			Calls:      []string{"Hello -> Sprintf", "Hello -> ToUpper", "Hello -> helper", "helper -> Hello"},
			Supertypes: []string{"Greeter <: inner", "Speaker <: Stringer"},
			Imports:    []string{"fmt", "strings as str", "os.*"},
		}},
		{"syntax error", "package p\nfunc broken( {\n}\n", ft.Expect{Package: "p", Defs: []string{"function broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "a.go", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
}

func TestDefDetails(t *testing.T) {
	f, err := Extract(context.Background(), "a.go", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	hello := ft.DefNamed(t, f, "Hello")
	if hello.Receiver != "*Greeter" || hello.Doc != "Hello says hello." || hello.Visibility != "public" ||
		hello.Signature != "func (g *Greeter) Hello(who string) (string, error)" || hello.TypeName != "(string, error)" {
		t.Errorf("Hello = %+v", hello)
	}
	if g := ft.DefNamed(t, f, "Greeter"); g.Doc != "Greeter greets." {
		t.Errorf("Greeter doc %q", g.Doc)
	}
	if g := ft.DefNamed(t, f, "global"); g.TypeName != "Greeter" || g.Visibility != "private" {
		t.Errorf("global = %+v", g)
	}
	if x := ft.DefNamed(t, f, "helper.x"); x.TypeName != "Greeter" {
		t.Errorf("x type %q", x.TypeName)
	}
}

// Named results live in the body's scope, so `n, err :=` there assigns err;
// range variables take their types from the ranged variable's declaration.
func TestNamedResultsAndRangeTypes(t *testing.T) {
	src := `package p

func Sum(byName map[string]*Item, items ...Item) (total int, err error) {
	n, err := count()
	for k, v := range byName {
		_, _ = k, v
	}
	for _, it := range items {
		total += it.N + n
	}
	return
}
`
	f, err := Extract(context.Background(), "a.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	ft.Check(t, f, ft.Expect{
		Package: "p",
		Defs:    []string{"parameter Sum.total", "parameter Sum.err", "variable Sum.n"},
		Refs:    []string{"write err"},
		Absent:  []string{"variable Sum.err"},
	})
	for name, want := range map[string]string{"Sum.items": "[]Item", "Sum.k": "string", "Sum.v": "*Item", "Sum.it": "Item"} {
		if got := ft.DefNamed(t, f, name).TypeName; got != want {
			t.Errorf("%s type %q, want %q", name, got, want)
		}
	}
}

// Variables set from value chains keep them for the resolver; a type
// switch declares its variable per clause; anonymous struct types declare
// their fields, owned by the variable declared with them, and the keys of
// literals whose element type is elided name fields.
func TestValuesCasesAndLiterals(t *testing.T) {
	src := `package p

func f(x any, s *state) {
	c := s.conn
	p := s.Func().Text
	e := &stats[s.i]
	v, ok := x.(*T)
	z := new(Zipf)
	r, w, err := Pipe()
	for _, b := range s.blocks {
	}
	switch y := x.(type) {
	case *T:
		_ = y
	case A, B:
		_ = y
	}
	tests := []struct{ name string }{{name: "a"}}
	_ = []opData{{reg: 1}}
	_, _, _, _, _, _, _, _, _, _ = c, p, e, v, ok, z, r, w, err, tests
}
`
	f, err := Extract(context.Background(), "a.go", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"f.c": "s.conn", "f.p": "s.Func().Text", "f.e": "&stats[]",
		"f.v": "x.(*T)", "f.z": "new(Zipf)", "f.r": "Pipe()", "f.w": "Pipe()#1", "f.b": "s.blocks[]"} {
		if got := ft.DefNamed(t, f, name).Value; got != want {
			t.Errorf("%s value %q, want %q", name, got, want)
		}
	}
	var cases []string
	for _, d := range f.Defs {
		if d.Name == "y" {
			cases = append(cases, d.TypeName+"|"+d.Value)
		}
	}
	if want := []string{"*T|", "|x"}; !slices.Equal(cases, want) {
		t.Errorf("type switch variables %q, want %q", cases, want)
	}
	ft.Check(t, f, ft.Expect{
		Package: "p",
		Defs:    []string{"field f.tests.name"},
		Refs:    []string{"write opData{}.reg"},
		Absent:  []string{"read name", "read reg"},
	})
	var key string
	for _, r := range f.Refs {
		if r.Name == "name" {
			key = r.Qualifier
		}
	}
	if !strings.HasPrefix(key, "struct@") {
		t.Errorf("key of an anonymous struct literal qualified %q", key)
	}
}
