package naming

import (
	"slices"
	"testing"

	"github.com/kast-dev/kast/analysis"
)

// file is the facts of one file with the given definitions.
func file(path, lang, pkg string, defs ...analysis.Def) *analysis.FileFacts {
	return &analysis.FileFacts{Path: path, Lang: lang, Package: pkg, Defs: defs}
}

func def(name string, kind analysis.Kind, container int32, visibility string) analysis.Def {
	return analysis.Def{Name: name, Kind: kind, Container: container, Visibility: visibility}
}

func TestQualifiedNames(t *testing.T) {
	root := "/w"
	kt := file("/w/src/main/kotlin/a/A.kt", "kotlin", "com.a",
		def("Outer", analysis.KindClass, analysis.None, ""),
		def("Inner", analysis.KindClass, 0, ""),
		def("run", analysis.KindFunction, 1, ""),
		def("x", analysis.KindVariable, 2, ""))
	for _, tc := range []struct {
		f                        *analysis.FileFacts
		i                        int32
		contained, fq, container string
	}{
		{kt, 0, "Outer", "com.a.Outer", "com.a"},
		{kt, 2, "Outer.Inner.run", "com.a.Outer.Inner.run", "com.a.Outer.Inner"},
		{kt, 3, "Outer.Inner.run.x", "com.a.Outer.Inner.run.x", "com.a.Outer.Inner.run"},
		{file("/w/src/pkg/mod.py", "python", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "pkg.mod.f", "pkg.mod"},
		{file("/w/pkg/__init__.py", "python", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "pkg.f", "pkg"},
		{file("/w/__init__.py", "python", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "f", ""},
		{file("/w/lib/util/index.ts", "typescript", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "lib/util.f", "lib/util"},
		{file("/w/index.js", "javascript", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "f", ""},
		{file("/elsewhere/m.py", "python", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "f", ""},
		{file("/w/r.rs", "rust", "", def("f", analysis.KindFunction, analysis.None, "")), 0, "f", "f", ""},
	} {
		if got := Contained(tc.f, tc.i); got != tc.contained {
			t.Errorf("Contained(%s #%d) = %q, want %q", tc.f.Path, tc.i, got, tc.contained)
		}
		if got := FQName(root, tc.f, tc.i); got != tc.fq {
			t.Errorf("FQName(%s #%d) = %q, want %q", tc.f.Path, tc.i, got, tc.fq)
		}
		if got := Container(root, tc.f, tc.i); got != tc.container {
			t.Errorf("Container(%s #%d) = %q, want %q", tc.f.Path, tc.i, got, tc.container)
		}
	}
}

// One Python module rule: a src/ layout folder is not part of the module.
func TestPythonModule(t *testing.T) {
	for rel, want := range map[string]string{
		"mod.py": "mod", "pkg/mod.py": "pkg.mod", "pkg/__init__.py": "pkg", "src/pkg/mod.py": "pkg.mod",
		"src/pkg/__init__.py": "pkg", "app/src/mod.py": "app.src.mod", "__init__.py": "", "stubs/m.pyi": "stubs.m",
	} {
		if got := PythonModule(rel); got != want {
			t.Errorf("PythonModule(%q) = %q, want %q", rel, got, want)
		}
	}
}

func TestVisibility(t *testing.T) {
	kt := file("/w/A.kt", "kotlin", "a",
		def("A", analysis.KindClass, analysis.None, ""),
		def("secret", analysis.KindProperty, 0, "private"),
		def("f", analysis.KindFunction, 0, "internal"),
		def("local", analysis.KindVariable, 2, ""))
	goFile := file("/w/a.go", "go", "a", def("Exported", analysis.KindFunction, analysis.None, "public"), def("hidden", analysis.KindFunction, analysis.None, "private"))
	js := file("/w/a.js", "javascript", "", def("f", analysis.KindFunction, analysis.None, ""))
	for _, tc := range []struct {
		f               *analysis.FileFacts
		i               int32
		want, effective string
	}{
		{kt, 0, "PUBLIC", "PUBLIC"}, {kt, 1, "PRIVATE", "PRIVATE"}, {kt, 2, "INTERNAL", "INTERNAL"}, {kt, 3, "LOCAL", "LOCAL"},
		{goFile, 0, "PUBLIC", "PUBLIC"}, {goFile, 1, "PRIVATE", "PRIVATE"}, {js, 0, "", "PUBLIC"},
	} {
		if got := Visibility(tc.f, tc.i); got != tc.want {
			t.Errorf("Visibility(%s #%d) = %q, want %q", tc.f.Path, tc.i, got, tc.want)
		}
		if got := EffectiveVisibility(tc.f, tc.i); got != tc.effective {
			t.Errorf("EffectiveVisibility(%s #%d) = %q, want %q", tc.f.Path, tc.i, got, tc.effective)
		}
	}
	if got := UsageFacets("PROTECTED", "/w/buildSrc/x.kt"); !slices.Equal(got, []string{"PUBLIC_API", "BUILD_LOGIC"}) {
		t.Errorf("facets of a protected buildSrc declaration: %v", got)
	}
	if got := UsageFacets("INTERNAL", "/w/build.gradle.kts"); !slices.Equal(got, []string{"INTERNAL_API", "BUILD_LOGIC"}) {
		t.Errorf("facets of an internal Gradle script declaration: %v", got)
	}
	if got := UsageFacets("", "/w/a.py"); len(got) != 0 {
		t.Errorf("facets of an unknown visibility: %v", got)
	}
}

func TestKinds(t *testing.T) {
	for k, want := range map[analysis.Kind][2]string{
		analysis.KindClass: {"CLASS", "CLASS"}, analysis.KindStruct: {"CLASS", "CLASS"}, analysis.KindEnum: {"CLASS", "ENUM_CLASS"},
		analysis.KindTypeAlias: {"CLASS", "TYPEALIAS"}, analysis.KindInterface: {"INTERFACE", "INTERFACE"}, analysis.KindObject: {"OBJECT", "OBJECT"},
		analysis.KindMethod: {"FUNCTION", "FUNCTION"}, analysis.KindConstructor: {"FUNCTION", "CONSTRUCTOR"},
		analysis.KindField: {"PROPERTY", "PROPERTY"}, analysis.KindEnumEntry: {"PROPERTY", "ENUM_ENTRY"},
		analysis.KindParameter: {"PARAMETER", "PARAMETER"}, analysis.KindLambda: {"UNKNOWN", "UNKNOWN"},
	} {
		if got := [2]string{Kind(k), IndexKind(k)}; got != want {
			t.Errorf("%v: Kind, IndexKind = %v, want %v", k, got, want)
		}
		if !IsSymbolKind(Kind(k)) {
			t.Errorf("%v: %s is not a SymbolKind", k, Kind(k))
		}
	}
	if IsSymbolKind("ENUM_CLASS") || IsSymbolKind("class") {
		t.Error("IsSymbolKind accepts an index kind or a request kind")
	}
	if RequestKind("class") != "CLASS" || RequestKind("property") != "PROPERTY" || RequestKind("parameter") != "" || RequestKind("CLASS") != "" {
		t.Error("RequestKind maps the five lowercase request kinds only")
	}
}

func TestSourceSetAndModule(t *testing.T) {
	for path, want := range map[string]string{"/w/src/main/kotlin/A.kt": "main", "/w/app/src/test/java/T.java": "test", "/w/a/b.go": "", "/w/src/x.py": ""} {
		if got := SourceSet(path); got != want {
			t.Errorf("SourceSet(%q) = %q, want %q", path, got, want)
		}
	}
	for path, want := range map[string]string{"/w/a/b/c.go": "a/b", "/w/c.go": ".", "/elsewhere/c.go": ""} {
		if got := Module("/w", path); got != want {
			t.Errorf("Module(/w, %q) = %q, want %q", path, got, want)
		}
	}
	if RootModule("/home/me/shop") != "shop" {
		t.Error("RootModule is the root's folder name")
	}
}
