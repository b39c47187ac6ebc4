package python

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

// Functions without a return annotation are typed by what they return.
func TestReturnedType(t *testing.T) {
	src := `class Env:
    def copy(self):
        return self
    @classmethod
    def make(cls, n):
        return cls(n)
def environ():
    if x:
        return None
    return _Environ(1)
def both(flag):
    if flag:
        return Left()
    return mod.Right()
def text(p: Path):
    if p:
        return p
    return "x"
def lists():
    def inner():
        return Inner()
    return []
def gen():
    yield 1
    return Foo()
async def coro():
    return Foo()
def unknown():
    return helper()
def create_app(config=None):
    app = Flask(__name__)
    if config:
        app.config = config
        app.views[0] = None
    return app
def rebound():
    app = Flask(__name__)
    app = wrap(app)
    return app
def looped(items):
    for item in items:
        pass
    item = Item()
    return item
`
	f, err := Extract(context.Background(), "a.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"Env.copy": "Env", "Env.make": "Env", "environ": "_Environ",
		"both": "Left | mod.Right", "text": "Path | str", "lists": "list", "gen": "", "coro": "", "unknown": "",
		"create_app": "Flask", "rebound": "", "looped": ""} {
		if got := ft.DefNamed(t, f, name).TypeName; got != want {
			t.Errorf("%s returns %q, want %q", name, got, want)
		}
	}
}

// isinstance checks narrow a name inside the if block and after an
// assert; conditions on the interpreter are recorded for the resolver.
func TestFlowCasts(t *testing.T) {
	src := `import sys
def f(x, y):
    if isinstance(x, str) and y:
        x.upper()
    elif isinstance(x, (bytes, mod.Buf)):
        pass
    assert isinstance(y, int)
    y.bit_length()
if sys.version_info < (3, 10):
    old()
elif sys.platform == "win32":
    win()
else:
    new()
if TYPE_CHECKING:
    pass
`
	f, err := Extract(context.Background(), "a.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, c := range f.Casts {
		got = append(got, c.Name+":"+c.Type)
	}
	want := []string{"x:str", "x:str", "x:bytes | mod.Buf", "y:int", // x is str in the if's block and in `and y`
		"sys.version_info < (3, 10)", "not (sys.version_info < (3, 10))", `sys.platform == "win32"`,
		"not (sys.version_info < (3, 10))", `not (sys.platform == "win32")`, "TYPE_CHECKING"}
	for i := range want {
		if want[i][0] == 's' || want[i][0] == 'n' || want[i][0] == 'T' {
			want[i] = ":" + want[i]
		}
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("casts\n got %q\nwant %q", got, want)
	}
	// The narrowing of x covers the if block, not the elif.
	for _, c := range f.Casts {
		if c.Name == "x" && c.Type == "str" && !spanHas(src, c.Span, "x.upper()") && src[c.Span.Start:c.Span.End] != "y" {
			t.Errorf("str cast of x spans %q", src[c.Span.Start:c.Span.End])
		}
		if c.Name == "y" && !spanHas(src, c.Span, "y.bit_length()") {
			t.Errorf("assert cast of y spans %q", src[c.Span.Start:c.Span.End])
		}
	}
}

func spanHas(src string, sp analysis.Span, sub string) bool {
	return sp.Start >= 0 && sp.End <= len(src) && strings.Contains(src[sp.Start:sp.End], sub)
}

// A conditional expression narrows its first operand by its condition
// (`v.encode() if isinstance(v, str) else v`), and `isinstance(x, T) and
// x.y` its right operand.
func TestFlowCastsInExpressions(t *testing.T) {
	src := "def f(v, w):\n    a = v.encode() if isinstance(v, str) else v\n    return isinstance(w, bytes) and w.decode()\n"
	f, err := Extract(context.Background(), "a.py", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"v:str": "v.encode()", "w:bytes": "w.decode()"}
	for _, c := range f.Casts {
		key := c.Name + ":" + c.Type
		if sub, ok := want[key]; !ok || !spanHas(src, c.Span, sub) || spanHas(src, c.Span, "else") {
			t.Errorf("cast %s spans %q", key, src[c.Span.Start:c.Span.End])
		}
		delete(want, key)
	}
	if len(want) > 0 {
		t.Errorf("casts missing: %v", want)
	}
}
