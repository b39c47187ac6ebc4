package java

import (
	"context"
	"testing"

	ft "github.com/kast-dev/kast/analysis/internal/factstest"
)

const sample = `package com.example.app;

import java.util.List;
import static java.lang.Math.max;
import com.example.util.*;

/** Greeter doc. */
public class Greeter<T> extends Base implements Iface, Other<T> {
    private String name = "x";
    static final int MAX = 1, MIN = 2;
    public Greeter(String name) { super(); this.name = name; }
    @Override
    public String greet(String who) throws Exception {
        String msg = this.name + who;
        var g = new Greeter<String>("a");
        g.greet(msg);
        for (int i = 0; i < 3; i++) { count += i; }
        for (String s : list) { System.out.println(s); }
        Runnable r = () -> helper(msg);
        try { x = 1; } catch (IOException e) { }
        return max(1, 2) + Util.helper(who);
    }
    enum Color { RED, GREEN; void f() {} }
    interface Inner extends Iface { void run(); }
    record Point(int x, int y) {}
}
`

func TestExtract(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want ft.Expect
	}{
		{"declarations", sample, ft.Expect{
			Package: "com.example.app",
			Defs: []string{"class Greeter", "typeParameter Greeter.T", "field Greeter.name", "constant Greeter.MAX",
				"constant Greeter.MIN", "constructor Greeter.Greeter", "parameter Greeter.Greeter.name", "method Greeter.greet",
				"parameter Greeter.greet.who", "variable Greeter.greet.msg", "variable Greeter.greet.g", "variable Greeter.greet.i",
				"variable Greeter.greet.s", "variable Greeter.greet.r", "parameter Greeter.greet.e", "enum Greeter.Color",
				"enumEntry Greeter.Color.RED", "method Greeter.Color.f", "interface Greeter.Inner", "method Greeter.Inner.run",
				"class Greeter.Point", "field Greeter.Point.x"},
			Refs: []string{"write this.name", "read this.name", "read who", "call Greeter", "call g.greet", "read|write count",
				"read|write i", "call System.out.println", "read System.out", "call helper", "write x", "call max", "call Util.helper",
				"type String", "type IOException", "read Override", "inheritance Base", "inheritance Iface", "inheritance Other",
				"import java.util.List", "import java.lang.Math.max"},
			Calls:      []string{"Greeter.greet -> greet", "Greeter.greet -> println", "Greeter.greet -> helper", "Greeter.greet -> Greeter"},
			Supertypes: []string{"Greeter <: Base", "Greeter <: Iface", "Greeter <: Other", "Greeter.Inner <: Iface"},
			Imports:    []string{"java.util.List", "java.lang.Math.max", "com.example.util.*"},
		}},
		{"syntax error", "class Broken { void m( { } }\n", ft.Expect{Defs: []string{"class Broken"}, Errors: 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f, err := Extract(context.Background(), "A.java", []byte(tt.src))
			if err != nil {
				t.Fatal(err)
			}
			ft.Check(t, f, tt.want)
		})
	}
	f, _ := Extract(context.Background(), "A.java", []byte(sample))
	if g := ft.DefNamed(t, f, "Greeter"); g.Doc != "Greeter doc." || g.Visibility != "public" {
		t.Errorf("Greeter = %+v", g)
	}
	if g := ft.DefNamed(t, f, "Greeter.greet.g"); g.TypeName != "Greeter<String>" {
		t.Errorf("g type %q", g.TypeName)
	}
	if m := ft.DefNamed(t, f, "Greeter.greet"); m.Signature != "@Override public String greet(String who) throws Exception" || m.TypeName != "String" {
		t.Errorf("greet = %+v", m)
	}
}
