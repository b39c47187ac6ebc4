package resolve_test

import "testing"

// Go packages share names across directories: the import path, not the
// package name, says which one a qualifier means.
func TestGoSameNamedPackages(t *testing.T) {
	files := map[string]string{
		"geo/shape.go":      "package geo\n\ntype Circle struct{ R float64 }\n\nfunc (c *Circle) Area() float64 { return c.R }\n\nfunc Area(c Circle) float64 { return 0 }\n",
		"legacy/geo/geo.go": "package geo\n\ntype Circle struct{ R int }\n\nfunc Area(c Circle) int { return 0 }\n",
		"report/report.go": `package report

import (
	"example.com/app/geo"
	old "example.com/app/legacy/geo"
)

func Report() {
	c := &geo.Circle{R: 2}
	c.Area()
	geo.Area(*c)
	lc := old.Circle{R: 3}
	old.Area(lc)
}
`,
	}
	checkMarkers(t, files, []marker{
		{"report/report.go", "geo.^Circle{R: 2}", 0, "geo/shape.go:Circle"},
		{"report/report.go", "R: 2", 0, "geo/shape.go:Circle.R"},           // key of a qualified literal
		{"report/report.go", "c.^Area", 0, "geo/shape.go:Area"},            // local typed by a qualified literal
		{"report/report.go", "geo.^Area", 0, "geo/shape.go:Area"},          // the function, not the method
		{"report/report.go", "old.^Circle", 0, "legacy/geo/geo.go:Circle"}, // aliased import path
		{"report/report.go", "R: 3", 0, "legacy/geo/geo.go:Circle.R"},
		{"report/report.go", "old.^Area", 0, "legacy/geo/geo.go:Area"},
	})
}

// An explicit import shadows a same-package declaration; a static import
// names a member of a type; members are found however deep the hierarchy.
func TestJavaImportsAndDeepInheritance(t *testing.T) {
	files := map[string]string{
		"a/Shape.java":  "package a;\n\npublic interface Shape { default String label() { return \"\"; } }\n",
		"a/Base.java":   "package a;\n\npublic abstract class Base implements Shape {}\n",
		"a/Square.java": "package a;\n\npublic class Square extends Base {}\n",
		"b/Util.java":   "package b;\n\npublic class Util { public static int twice(int x) { return 2 * x; } }\n",
		"c/Util.java":   "package c;\n\npublic class Util { public static int twice(int x) { return x; } }\n",
		"c/Main.java": `package c;

import a.*;
import b.Util;
import static b.Util.twice;

class Main {
    int run(Square sq) {
        sq.label();
        return Util.twice(1) + twice(2);
    }
}
`,
	}
	checkMarkers(t, files, []marker{
		{"c/Main.java", "sq.^label", 0, "a/Shape.java:Shape.label"}, // Square → Base → Shape
		{"c/Main.java", "Util.^twice", 0, "b/Util.java:Util.twice"}, // the import beats c.Util
		{"c/Main.java", "+ ^twice", 0, "b/Util.java:Util.twice"},    // static import
		{"c/Main.java", "import b.^Util", 0, "b/Util.java:Util"},
	})
}
