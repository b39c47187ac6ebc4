package rust

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `use std::collections::HashMap;
use crate::util::{helper as h, other};
use super::*;
mod inner;
/// Greeter doc.
#[derive(Debug)]
pub struct Greeter<T> { pub name: String, count: T }
pub enum Color { Red, Green(i32), Blue { x: i32 } }
pub trait Speak: Display + Clone { fn speak(&self) -> String; }
type Alias = HashMap<String, i32>;
const MAX: i32 = 1;
impl<T> Greeter<T> {
    pub fn new(name: String) -> Self { Self { name, count: 0 } }
    fn greet(&mut self, who: &str) -> String {
        let msg = format!("{} {}", self.name, who);
        let mut g = Greeter::new(msg.clone());
        g.greet("x");
        self.count += 1;
        for (i, c) in who.chars().enumerate() { println!("{}", c); }
        let f = |a: i32| a + 1;
        if let Some(v) = opt { v; }
        match c { Color::Red => 1, other => 2 };
        h(msg)
    }
}
impl Speak for Greeter<i32> { fn speak(&self) -> String { helper::run() } }
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Defs: []string{"module inner", "struct Greeter", "typeParameter Greeter.T", "field Greeter.name", "field Greeter.count",
				"enum Color", "enumEntry Color.Red", "enumEntry Color.Green", "field Color.Blue.x", "trait Speak",
				"method Speak.speak", "typeAlias Alias", "constant MAX", "method new", "parameter new.name", "method greet",
				"parameter greet.self", "parameter greet.who", "variable greet.msg", "variable greet.g", "variable greet.i",
				"variable greet.c", "parameter greet.a", "variable greet.v", "variable greet.other", "method speak"},
			Refs: []string{"call format", "read name", "call Greeter.new", "call msg.clone", "call g.greet",
				"read|write self.count", "call who.chars", "call println", "read c", "read Some", "read opt", "call h",
				"call helper.run", "write Greeter<T>{}.count", "read name", "type HashMap", "type String", "read Color.Red",
				"inheritance Display", "inheritance Clone", "inheritance Speak", "import std::collections.HashMap",
				"import crate::util.helper", "import crate::util.other"},
			Calls:      []string{"greet -> new", "greet -> greet", "greet -> h", "speak -> run", "greet -> format"},
			Supertypes: []string{"Speak <: Display", "Speak <: Clone", "Greeter <: Speak"},
			Imports:    []string{"std::collections::HashMap", "crate::util::helper as h", "crate::util::other", "super.*"},
		}},
		{"mod declarations", "mod cli;\nmod inline { fn f() {} }\n", ft.Expect{
			Defs:    []string{"module cli", "module inline", "function inline.f"},
			Imports: []string{"self::cli"},
		}},
		{"syntax error", "fn broken( { }\n", ft.Expect{Defs: []string{"function broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "a.rs", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
	f, _ := Extract(context.Background(), "a.rs", []byte(sample))
	if g := ft.DefNamed(t, f, "Greeter"); g.Doc != "Greeter doc." || g.Visibility != "pub" {
		t.Errorf("Greeter = %+v", g)
	}
	if g := ft.DefNamed(t, f, "greet"); g.Receiver != "Greeter<T>" || g.Signature != "fn greet(&mut self, who: &str) -> String" {
		t.Errorf("greet = %+v", g)
	}
	if g := ft.DefNamed(t, f, "greet.g"); g.TypeName != "Greeter" {
		t.Errorf("g type %q", g.TypeName)
	}
}
