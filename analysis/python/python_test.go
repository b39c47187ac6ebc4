package python

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `"""Module doc."""
import os.path
import numpy as np
from pkg.mod import thing as t, other
from .rel import *
from . import sibling

MAX = 3

# Greeter does stuff.
class Greeter(Base, base.Mixin, metaclass=Meta):
    count: int = 0

    def __init__(self, name: str):
        """Makes one."""
        self.name = name

    @property
    def hello(self, who="x", *args, **kw) -> str:
        msg = f"{self.name} {who}"
        self.count += 1
        self.name = msg
        total = [x for x in args]
        lam = lambda y: y + 1
        for i, j in kw.items():
            print(i)
        global MAX
        MAX = 4
        msg = "again"
        return helper(msg, key=total)

    @staticmethod
    def make(arg):
        return Greeter(arg)

def helper(s, key=None):
    key = key or s
    g = Greeter("a")
    g.hello()
    return os.path.join(s)
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Defs: []string{"constant MAX", "class Greeter", "field Greeter.count", "method Greeter.__init__",
				"parameter Greeter.__init__.self", "parameter Greeter.__init__.name", "field Greeter.name",
				"method Greeter.hello", "parameter Greeter.hello.who", "parameter Greeter.hello.args",
				"parameter Greeter.hello.kw", "variable Greeter.hello.msg", "variable Greeter.hello.total",
				"variable Greeter.hello.x", "parameter Greeter.hello.y", "variable Greeter.hello.i",
				"method Greeter.make", "function helper", "variable helper.g"},
			Refs: []string{"read self.name", "write msg", "read|write self.count", "write self.name", "read args",
				"call kw.items", "call print", "write MAX", "call helper", "call Greeter", "call g.hello",
				"call os.path.join", "read os.path", "write key", "type int", "type str", "inheritance Base",
				"inheritance base.Mixin", "read Meta", "call property", "import os.path", "import pkg.mod.thing",
				"import pkg.mod.other"},
			Absent:     []string{"variable helper.key", "read metaclass", "variable Greeter.hello.MAX", "field Greeter.hello"},
			Calls:      []string{"Greeter.hello -> print", "Greeter.hello -> helper", "helper -> join", "Greeter.make -> Greeter"},
			Supertypes: []string{"Greeter <: Base", "Greeter <: Mixin"},
			Imports:    []string{"os.path", "numpy as np", "pkg.mod.thing as t", "pkg.mod.other", ".rel.*", ".sibling"},
		}},
		{"syntax error", "def broken(:\n    pass\n", ft.Expect{Defs: []string{"function broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "a.py", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
}

func TestDefDetails(t *testing.T) {
	f, err := Extract(context.Background(), "a.py", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	if g := ft.DefNamed(t, f, "Greeter"); g.Doc != "Greeter does stuff." || g.Signature != "class Greeter(Base, base.Mixin, metaclass=Meta)" {
		t.Errorf("Greeter = %+v", g)
	}
	if i := ft.DefNamed(t, f, "Greeter.__init__"); i.Doc != "Makes one." {
		t.Errorf("__init__ doc %q", i.Doc)
	}
	if s := ft.DefNamed(t, f, "Greeter.hello.self"); s.TypeName != "Greeter" {
		t.Errorf("self type %q", s.TypeName)
	}
	if a := ft.DefNamed(t, f, "Greeter.make.arg"); a.TypeName != "" {
		t.Errorf("static method's first parameter typed %q", a.TypeName)
	}
	if h := ft.DefNamed(t, f, "Greeter.hello"); h.TypeName != "str" {
		t.Errorf("hello returns %q", h.TypeName)
	}
	if g := ft.DefNamed(t, f, "helper.g"); g.TypeName != "Greeter" {
		t.Errorf("g type %q", g.TypeName)
	}
}

// A class constructed through a module keeps the module in the type, so
// the resolver looks for the class there.
func TestConstructedTypeKeepsModule(t *testing.T) {
	src := "import app.mem as mem\n\ns = mem.Store()\nu = User()\nv = make()\n"
	f, err := Extract(context.Background(), "a.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"s": "mem.Store", "u": "User", "v": ""} {
		if got := ft.DefNamed(t, f, name).TypeName; got != want {
			t.Errorf("%s type %q, want %q", name, got, want)
		}
	}
}
