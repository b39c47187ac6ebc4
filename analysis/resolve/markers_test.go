package resolve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// marker says what the name at the occurrence-th match of needle in file
// (at its "^", or its start) resolves to: "path:Qualified.name" of the best certain
// candidate, or "" when nothing certain may be returned.
type marker struct {
	file       string
	needle     string
	occurrence int
	want       string
}

func checkMarkers(t *testing.T, files map[string]string, markers []marker) {
	t.Helper()
	ws := workspace(t, files)
	checkMarkersWith(t, ws, resolve.New(ws), files, markers)
	// With a budget too small to keep any file but the last one read, over
	// a workspace that decodes its files anew at every read (as the index
	// does), every answer is the same.
	checkMarkersWith(t, ws, resolve.NewWithBudget(decodingWorkspace{ws}, 1), files, markers)
}

// decodingWorkspace returns a fresh copy of a file's facts at every read,
// as a workspace decoding them from an index does.
type decodingWorkspace struct{ *resolve.Memory }

func (d decodingWorkspace) File(path string) *analysis.FileFacts {
	f := d.Memory.File(path)
	if f == nil {
		return nil
	}
	g := *f
	return &g
}

func checkMarkersWith(t *testing.T, ws *resolve.Memory, r *resolve.Resolver, files map[string]string, markers []marker) {
	t.Helper()
	for _, m := range markers {
		caret := max(0, strings.Index(m.needle, "^"))
		offset := offsetOf(t, files[m.file], strings.Replace(m.needle, "^", "", 1), m.occurrence, caret)
		got := r.DefinitionAt(m.file, offset)
		gotName := ""
		if len(got) > 0 && !got[0].Uncertain {
			gotName = qualified(ws, got[0].Def)
		}
		if gotName != m.want {
			t.Errorf("%s: %q #%d resolved to %q, want %q (candidates %+v)", m.file, m.needle, m.occurrence, gotName, m.want, got)
		}
		for _, c := range got {
			if c.Uncertain != (c.Confidence < resolve.DefaultThreshold) {
				t.Errorf("%s: %q: candidate %+v flagged inconsistently", m.file, m.needle, c)
			}
		}
	}
}

func TestKotlinMarkers(t *testing.T) {
	files := map[string]string{
		"app/Model.kt": `package app.model

open class Animal(val name: String) {
    open fun speak(): String = name
    fun rename(to: String) { }
}
class Dog(name: String, val owner: Person) : Animal(name) {
    override fun speak(): String = "woof " + this.name
    companion object { fun create(): Dog = Dog("rex", Person("a")) }
}
data class Person(val name: String)
fun Person.greet(): String = "hi " + name
typealias Pets = List<Animal>
`,
		"app/Main.kt": `package app

import app.model.Dog
import app.model.Person as Human
import app.model.*

val name = "top"

fun run(dog: Dog) {
    val d = Dog("a", Human("b"))
    d.speak()
    dog.rename(to = name)
    val p = Human("c")
    p.greet()
    Dog.create()
    listOf(1).forEach { println(it) }
    val name = "shadow"
    println(name)
    d.owner.name
}
fun other(): Animal? = null
`,
	}
	checkMarkers(t, files, []marker{
		{"app/Main.kt", "Dog\n", 0, "app/Model.kt:Dog"},                     // explicit import
		{"app/Main.kt", "Person as", 0, "app/Model.kt:Person"},              // aliased import
		{"app/Main.kt", "Dog)", 0, "app/Model.kt:Dog"},                      // parameter type through import
		{"app/Main.kt", "Dog(\"a\"", 0, "app/Model.kt:Dog"},                 // constructor call names the class
		{"app/Main.kt", "Human(\"b\")", 0, "app/Model.kt:Person"},           // aliased constructor call
		{"app/Main.kt", "speak()", 0, "app/Model.kt:Dog.speak"},             // receiver type from constructor call
		{"app/Main.kt", "rename(", 0, "app/Model.kt:Animal.rename"},         // inherited member through a typed parameter
		{"app/Main.kt", "to = name", 0, "app/Model.kt:Animal.rename.to"},    // a named argument's label is the callee's parameter
		{"app/Main.kt", "name)\n    val p", 0, "app/Main.kt:name"},          // top-level property before shadowing
		{"app/Main.kt", "greet()", 0, "app/Model.kt:greet"},                 // extension function through an alias-typed local
		{"app/Main.kt", "create()", 0, "app/Model.kt:Dog.Companion.create"}, // companion member through the class
		{"app/Main.kt", "it)", 0, "app/Main.kt:run.it"},                     // implicit lambda parameter
		{"app/Main.kt", "name)\n    d.owner", 0, "app/Main.kt:run.name"},    // the local shadows the top-level property
		{"app/Main.kt", "owner.name", 0, "app/Model.kt:Dog.owner"},          // property parameter through a local
		{"app/Main.kt", "name\n}", 0, "app/Model.kt:Person.name"},           // declared property type of owner
		{"app/Main.kt", "Animal?", 0, "app/Model.kt:Animal"},                // wildcard import
		{"app/Model.kt", "name\n    fun rename", 0, "app/Model.kt:Animal.name"},
		{"app/Model.kt", "this.^name", 0, "app/Model.kt:Animal.name"},      // inherited property through this
		{"app/Model.kt", "Animal(name)", 0, "app/Model.kt:Animal"},         // supertype
		{"app/Model.kt", "name) {", 0, "app/Model.kt:Dog.name"},            // constructor parameter in the delegation call
		{"app/Model.kt", "Person(\"a\")", 0, "app/Model.kt:Person"},        // same-file class
		{"app/Model.kt", "name\ntypealias", 0, "app/Model.kt:Person.name"}, // extension receiver's member
		{"app/Model.kt", "Animal>", 0, "app/Model.kt:Animal"},              // type argument
		{"app/Model.kt", "String", 0, ""},                                  // library type: nothing certain
	})
}

func TestGoMarkers(t *testing.T) {
	files := map[string]string{
		"shop/item.go": `package shop

type Item struct {
	Name  string
	Price int
}

func (i Item) Total(n int) int { return i.Price * n }

type Priced interface{ Total(n int) int }
`,
		"shop/cart.go": `package shop

import "example.com/shop/money"

type Cart struct {
	Item
	items []Item
	Owner *Customer
}

type Customer struct{ Name string }

func (c *Cart) Add(it Item) {
	c.items = append(c.items, it)
	c.Total(1)
	c.Owner.Name = it.Name
	money.Format(it.Price)
}

func (c *Cart) Total(n int) int {
	sum := 0
	for _, it := range c.items {
		sum += it.Total(n)
	}
	x := &Cart{Owner: nil}
	x.Add(Item{Name: "a"})
	return sum
}
`,
		"shop/money/money.go": "package money\n\nfunc Format(cents int) string { return \"\" }\n",
		"other/item.go":       "package shop\n\ntype Item struct{}\n",
	}
	checkMarkers(t, files, []marker{
		{"shop/cart.go", "Item\n\titems", 0, "shop/item.go:Item"},        // embedded type, same package other file
		{"shop/cart.go", "items = ", 0, "shop/cart.go:Cart.items"},       // field through pointer receiver
		{"shop/cart.go", "c.^Total(1)", 0, "shop/cart.go:Total"},         // own method beats the promoted one
		{"shop/cart.go", "Owner.^Name", 0, "shop/cart.go:Customer.Name"}, // field type of a field
		{"shop/cart.go", "it.^Name", 0, "shop/item.go:Item.Name"},        // typed parameter
		{"shop/cart.go", "Format(", 0, "shop/money/money.go:Format"},     // imported package
		{"shop/cart.go", "it.^Total(n)", 0, "shop/item.go:Total"},        // range variable: an element of the field's slice type
		{"shop/cart.go", "Owner: nil", 0, "shop/cart.go:Cart.Owner"},     // composite literal key
		{"shop/cart.go", "x.^Add", 0, "shop/cart.go:Add"},                // local from &T{}
		{"shop/cart.go", "Name: \"a\"", 0, "shop/item.go:Item.Name"},     // key of a literal of another file's type
		{"shop/cart.go", "sum\n", 0, "shop/cart.go:Total.sum"},           // local
		{"shop/item.go", "i.^Price", 0, "shop/item.go:Item.Price"},       // value receiver
		{"shop/item.go", "int\n}", 0, ""},                                // builtin type
	})
}

func TestPythonMarkers(t *testing.T) {
	files := map[string]string{
		"pkg/models.py": `class Base:
    def save(self):
        return self.validate()

    def validate(self):
        return True


class User(Base):
    def __init__(self, name):
        self.name = name

    def greet(self, other: "User"):
        self.save()
        return self.name + other.name


def make_user(name):
    return User(name)
`,
		"app/main.py": `from pkg.models import User as U, make_user
import pkg.models

def run():
    u = U("x")
    u.greet(u)
    v = make_user("y")
    pkg.models.make_user("z")
    name = "n"
    return [name for name in ["a"]]
`,
	}
	checkMarkers(t, files, []marker{
		{"pkg/models.py", "self.^validate", 0, "pkg/models.py:Base.validate"}, // self in the defining class
		{"pkg/models.py", "self.^save", 0, "pkg/models.py:Base.save"},         // self reaches an inherited method
		{"pkg/models.py", "self.^name +", 0, "pkg/models.py:User.name"},       // attribute assigned in __init__
		{"pkg/models.py", "other.^name", 0, "pkg/models.py:User.name"},        // annotated parameter
		{"pkg/models.py", "User(name)", 0, "pkg/models.py:User"},
		{"pkg/models.py", "Base)", 0, "pkg/models.py:Base"},
		{"pkg/models.py", "User(^name)", 0, "pkg/models.py:make_user.name"},
		{"app/main.py", "U(\"x\")", 0, "pkg/models.py:User"},              // aliased import
		{"app/main.py", "greet(", 0, "pkg/models.py:User.greet"},          // local typed by a constructor call through an alias
		{"app/main.py", "make_user(\"y\")", 0, "pkg/models.py:make_user"}, // from-import
		{"app/main.py", "make_user(\"z\")", 0, "pkg/models.py:make_user"}, // module-qualified
		{"app/main.py", "name for", 0, "app/main.py:run.name"},            // comprehension variable
		{"app/main.py", "v = ", 0, "app/main.py:run.v"},
	})
}

func TestTypeScriptMarkers(t *testing.T) {
	files := map[string]string{
		"src/shapes.ts": `export interface Shape { area(): number }
export class Circle implements Shape {
  constructor(private r: number) {}
  area(): number { return 3 * this.r * this.r; }
}
export function unit(): Circle { return new Circle(1); }
`,
		"src/main.ts": `import { Circle, unit as makeUnit } from "./shapes";
import * as shapes from "./shapes";
const c = new Circle(2);
c.area();
makeUnit();
shapes.unit();
let total = 0;
total += c.area();
`,
	}
	checkMarkers(t, files, []marker{
		{"src/shapes.ts", "this.^r", 0, "src/shapes.ts:Circle.r"},     // parameter property
		{"src/shapes.ts", "Shape {\n  con", 0, "src/shapes.ts:Shape"}, // implements
		{"src/shapes.ts", "Circle(1)", 0, "src/shapes.ts:Circle"},
		{"src/main.ts", "Circle(2)", 0, "src/shapes.ts:Circle"},              // named import
		{"src/main.ts", "area();\nmakeUnit", 0, "src/shapes.ts:Circle.area"}, // receiver from new
		{"src/main.ts", "makeUnit()", 0, "src/shapes.ts:unit"},               // aliased import
		{"src/main.ts", "unit();\nlet", 0, "src/shapes.ts:unit"},             // namespace import
		{"src/main.ts", "total +=", 0, "src/main.ts:total"},
	})
}

func TestJavaMarkers(t *testing.T) {
	files := map[string]string{
		"src/com/ex/Animal.java": "package com.ex;\n\npublic abstract class Animal {\n  protected String name;\n  public String speak() { return name; }\n}\n",
		"src/com/ex/Dog.java": `package com.ex;

import java.util.List;

public class Dog extends Animal {
  private Dog friend;
  public String speak() { return "woof" + super.speak() + this.name; }
  void play(Dog other) { other.friend = this; friend.speak(); List<Dog> all = null; }
}
`,
	}
	checkMarkers(t, files, []marker{
		{"src/com/ex/Dog.java", "Animal {", 0, "src/com/ex/Animal.java:Animal"},           // same package
		{"src/com/ex/Dog.java", "super.^speak", 0, "src/com/ex/Animal.java:Animal.speak"}, // super
		{"src/com/ex/Dog.java", "this.^name", 0, "src/com/ex/Animal.java:Animal.name"},    // inherited field
		{"src/com/ex/Dog.java", "other.^friend", 0, "src/com/ex/Dog.java:Dog.friend"},     // typed parameter
		{"src/com/ex/Dog.java", "friend.^speak", 0, "src/com/ex/Dog.java:Dog.speak"},      // field type, own override
		{"src/com/ex/Dog.java", "List<", 0, ""},                                           // library import
	})
}

func TestRustMarkers(t *testing.T) {
	files := map[string]string{
		"src/shapes.rs": `pub struct Circle { pub r: f64 }
pub trait Area { fn area(&self) -> f64; }
impl Circle {
    pub fn new(r: f64) -> Self { Circle { r } }
    pub fn grow(&mut self) { self.r += 1.0; }
}
impl Area for Circle { fn area(&self) -> f64 { self.r * self.r } }
`,
		"src/main.rs": `use crate::shapes::{Circle, Area};
fn main() {
    let mut c = Circle::new(2.0);
    c.grow();
    let r = c.r;
    println!("{}", r);
}
`,
	}
	checkMarkers(t, files, []marker{
		{"src/shapes.rs", "self.^r +=", 0, "src/shapes.rs:Circle.r"}, // self in an impl
		{"src/shapes.rs", "Area for", 0, "src/shapes.rs:Area"},
		{"src/main.rs", "Circle::^new", 0, "src/shapes.rs:new"}, // associated function through a use
		{"src/main.rs", "grow()", 0, "src/shapes.rs:grow"},      // receiver from Type::new
		{"src/main.rs", "c.^r;", 0, "src/shapes.rs:Circle.r"},
		{"src/main.rs", "Circle, ", 0, "src/shapes.rs:Circle"}, // use list
	})
	ws := workspace(t, files)
	r := resolve.New(ws)
	if subs := r.Subtypes(defID(t, ws, "src/shapes.rs", "Area")); len(subs) != 1 || subs[0].Name != "Circle" {
		t.Errorf("implementors of Area = %+v", subs)
	}
}

func TestRubyMarkers(t *testing.T) {
	files := map[string]string{
		"lib/animal.rb": "class Animal\n  def initialize(name)\n    @name = name\n  end\n\n  def speak\n    @name\n  end\nend\n",
		"lib/dog.rb": `require_relative 'animal'

class Dog < Animal
  def speak
    loud(super)
  end

  def loud(s)
    s.upcase
  end

  def self.build
    d = Dog.new("rex")
    d.speak
  end
end
`,
	}
	checkMarkers(t, files, []marker{
		{"lib/animal.rb", "@name\n  end\nend", 0, "lib/animal.rb:Animal.@name"}, // instance variable
		{"lib/dog.rb", "Animal\n", 0, "lib/animal.rb:Animal"},
		{"lib/dog.rb", "loud(super)", 0, "lib/dog.rb:Dog.loud"}, // bare method call on self
		{"lib/dog.rb", "s.upcase", 0, "lib/dog.rb:Dog.loud.s"},
		{"lib/dog.rb", "d.^speak", 0, "lib/dog.rb:Dog.speak"}, // receiver from Foo.new
	})
}

func TestCallHierarchy(t *testing.T) {
	files := map[string]string{
		"a/a.go": "package a\n\nfunc leaf() {}\n\nfunc mid() { leaf(); leaf() }\n\nfunc top() { mid(); missing() }\n",
	}
	ws := workspace(t, files)
	r := resolve.New(ws)
	var callees []string
	for _, c := range r.Callees(defID(t, ws, "a/a.go", "top")) {
		target := ""
		if len(c.Targets) > 0 && !c.Targets[0].Uncertain {
			target = qualified(ws, c.Targets[0].Def)
		}
		callees = append(callees, c.Name+"="+target)
	}
	if want := []string{"mid=a/a.go:mid", "missing="}; !slices.Equal(callees, want) {
		t.Errorf("callees of top = %v, want %v", callees, want)
	}
	callers := r.Callers(defID(t, ws, "a/a.go", "leaf"))
	if len(callers) != 2 || qualified(ws, callers[0].Caller) != "a/a.go:mid" {
		t.Errorf("callers of leaf = %+v", callers)
	}
}

func TestKotlinPackagesAndOverloads(t *testing.T) {
	files := map[string]string{
		"a/Log.kt":   "package a\n\nfun log(x: Int) {}\nfun log(x: String) {}\nfun helper() {}\n",
		"b/Other.kt": "package b\n\nfun helper() {}\n",
		"c/Main.kt":  "package c\n\nimport a.*\n\nfun main() {\n    log(1)\n    helper()\n    b.helper()\n}\n",
	}
	checkMarkers(t, files, []marker{
		{"c/Main.kt", "helper()\n    b", 0, "a/Log.kt:helper"}, // the wildcard-imported package wins over another package
		{"c/Main.kt", "b.^helper", 0, "b/Other.kt:helper"},     // fully qualified call
	})
	ws := workspace(t, files)
	got := resolve.New(ws).DefinitionAt("c/Main.kt", offsetOf(t, files["c/Main.kt"], "log(1)", 0, 0))
	// The literal argument binds the call to log(x: Int); log(x: String)
	// cannot take it.
	if len(got) != 1 || got[0].Uncertain || got[0].Def.Index != 0 {
		t.Errorf("overloads of log = %+v, want log(x: Int) alone", got)
	}
}
