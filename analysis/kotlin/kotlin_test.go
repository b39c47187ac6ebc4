package kotlin

import (
	"context"
	"testing"

	"github.com/kast-dev/kast/analysis"
	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `package sample.app

import kotlin.math.max
import foo.Bar as Baz
import foo.bar.*

/** Docs for Foo. */
data class Foo(val a: Int, var b: String = "x", c: Int) : Base(), Iface<Int> {
    constructor(x: Int) : this(x, "y", 1)
    private val p: List<String> = listOf()
    companion object { const val MAX = 1; fun make(): Foo = Foo(1) }
    override fun run(x: Int): Int {
        val y = x + a
        var z = Baz()
        z = y
        this.b = "q"
        items.forEach { println(it) }
        call(name = y, other = 2)
        return max(y, c)
    }
}
sealed class S
enum class Color(val rgb: Int) { RED(1), GREEN(2) }
object Single : S()
interface Iface<T> { fun run(x: Int): Int }
typealias Alias = Map<String, Int>
fun String.ext(n: Int): String = this + n
val String.extProp: Int get() = length
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Package: "sample.app",
			Defs: []string{"class Foo", "constructor Foo.Foo", "property Foo.a", "property Foo.b", "parameter Foo.c",
				"property Foo.p", "object Foo.Companion", "constant Foo.Companion.MAX", "method Foo.Companion.make",
				"method Foo.run", "parameter Foo.run.x", "variable Foo.run.y", "variable Foo.run.z",
				"parameter Foo.run.it", "class S", "enum Color", "property Color.rgb", "enumEntry Color.RED",
				"object Single", "interface Iface", "typeParameter Iface.T", "method Iface.run", "typeAlias Alias",
				"function ext", "property extProp"},
			Refs: []string{"read x", "read a", "call Baz", "write z", "read y", "write this.b", "call items.forEach",
				"read it", "call println", "call call", "call max", "read c", "type Int", "type String",
				"inheritance Base", "inheritance Iface", "inheritance S", "import kotlin.math.max", "import foo.Bar",
				"call listOf", "call Foo", "read length"},
			Absent:     []string{"read name", "read other", "read Foo"},
			Calls:      []string{"Foo.run -> forEach", "Foo.run -> println", "Foo.run -> max", "Foo.Companion.make -> Foo", "Foo.p -> listOf"},
			Supertypes: []string{"Foo <: Base", "Foo <: Iface", "Single <: S"},
			Imports:    []string{"kotlin.math.max", "foo.Bar as Baz", "foo.bar.*"},
		}},
		{"syntax error", "package sample\nfun broken( = \"oops\"\n", ft.Expect{
			Package: "sample", Defs: []string{"function broken"}, Errors: 1,
		}},
		{"one-line bodies parse without errors", "class A {\n  companion object { const val MAX = 1 }\n}\nval f = { x: Int -> when (x) { 1 -> \"a\"\n else -> \"b\" } }\n", ft.Expect{
			Defs: []string{"constant A.Companion.MAX", "parameter f.x"},
		}},
		{"locals of init blocks and lambdas", "class A {\n  init { val a = 1 }\n  val b = run { val c = 2; c }\n}\n", ft.Expect{
			Defs:   []string{"variable A.a", "property A.b", "variable A.b.c"},
			Absent: []string{"property A.a", "property A.b.c"},
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "A.kt", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
}

func TestDefDetails(t *testing.T) {
	f, err := Extract(context.Background(), "A.kt", []byte(sample))
	if err != nil {
		t.Fatal(err)
	}
	foo := ft.DefNamed(t, f, "Foo")
	if foo.Doc != "Docs for Foo." || foo.Signature != `data class Foo(val a: Int, var b: String = "x", c: Int) : Base(), Iface<Int>` {
		t.Errorf("Foo doc %q signature %q", foo.Doc, foo.Signature)
	}
	if p := ft.DefNamed(t, f, "Foo.p"); p.Visibility != "private" || p.TypeName != "List<String>" {
		t.Errorf("p visibility %q type %q", p.Visibility, p.TypeName)
	}
	if z := ft.DefNamed(t, f, "Foo.run.z"); z.TypeName != "Baz" {
		t.Errorf("z inferred type %q, want Baz", z.TypeName)
	}
	if ext := ft.DefNamed(t, f, "ext"); ext.Receiver != "String" || ext.TypeName != "String" || ext.Signature != "fun String.ext(n: Int): String" {
		t.Errorf("ext receiver %q type %q signature %q", ext.Receiver, ext.TypeName, ext.Signature)
	}
	if p := ft.DefNamed(t, f, "extProp"); p.Receiver != "String" || p.TypeName != "Int" {
		t.Errorf("extProp receiver %q type %q", p.Receiver, p.TypeName)
	}
	run := ft.DefNamed(t, f, "Foo.run")
	if run.Signature != "override fun run(x: Int): Int" || run.FullSpan.StartPoint.Line != 11 || run.NameSpan.StartPoint != (analysis.Point{Line: 11, Col: 17}) {
		t.Errorf("run signature %q span %+v name %+v", run.Signature, run.FullSpan, run.NameSpan)
	}
	if f.Hash == "" || f.Size != len(sample) || f.Lines != 28 {
		t.Errorf("hash %q size %d lines %d", f.Hash, f.Size, f.Lines)
	}
}
