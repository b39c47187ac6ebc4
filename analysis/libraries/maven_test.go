package libraries

import (
	"path/filepath"
	"slices"
	"testing"
)

func pomText(gav, parent, body string) string {
	return "<project>" + gav + parent + body + "</project>"
}

func gav(g, a, v string) string {
	return "<groupId>" + g + "</groupId><artifactId>" + a + "</artifactId><version>" + v + "</version>"
}

func managed(deps ...string) string {
	return "<dependencyManagement><dependencies>" + deps2(deps...) + "</dependencies></dependencyManagement>"
}

func deps2(deps ...string) string {
	out := ""
	for _, d := range deps {
		out += "<dependency>" + d + "</dependency>"
	}
	return out
}

const importBOM = "<type>pom</type><scope>import</scope>"

// Versions come from the parent outside the workspace (relativePath), its
// parent in the Maven repository (whose dependencies are inherited too),
// BOMs imported (and the BOMs they import), the pom's own management
// winning over a BOM's; a BOM importing itself, a parent chain that loops
// and a BOM in no cache are skipped with their reasons.
func TestMavenParentsAndBOMs(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"corp/pom.xml": pomText(gav("com.corp", "corp-parent", "5"), "<parent>"+gav("org.base", "base-parent", "1")+"</parent>",
			"<properties><guava.version>32.0</guava.version></properties>"+
				managed(gav("com.google.guava", "guava", "${guava.version}"))),
		"m2/org/base/base-parent/1/base-parent-1.pom": pomText(gav("org.base", "base-parent", "1"), "",
			managed(gav("org.slf4j", "slf4j-api", "2.0"))+"<dependencies>"+deps2(gav("commons", "commons-lang", "3.0"))+"</dependencies>"),
		"m2/io/bom/bom/1.0/bom-1.0.pom": pomText(gav("io.bom", "bom", "1.0"), "",
			managed(gav("com.fasterxml.jackson.core", "jackson-core", "2.15"), gav("com.fasterxml.jackson.core", "jackson-databind", "2.15"),
				gav("io.bom", "inner", "1")+importBOM)),
		"m2/io/bom/inner/1/inner-1.pom": pomText(gav("io.bom", "inner", "1"), "", managed(gav("com.squareup.okio", "okio", "3.6"))),
		"m2/io/loop/loop/1/loop-1.pom":  pomText(gav("io.loop", "loop", "1"), "", managed(gav("io.loop", "loop", "1")+importBOM)),
		"m2/p/a/1/a-1.pom":              pomText(gav("p", "a", "1"), "<parent>"+gav("p", "b", "1")+"</parent>", ""),
		"m2/p/b/1/b-1.pom":              pomText(gav("p", "b", "1"), "<parent>"+gav("p", "a", "1")+"</parent>", ""),
		"ws/pom.xml": pomText("<artifactId>app</artifactId>",
			"<parent>"+gav("com.corp", "corp-parent", "5")+"<relativePath>../corp/pom.xml</relativePath></parent>",
			"<modules><module>looped</module></modules>"+
				managed(gav("io.bom", "bom", "1.0")+importBOM, gav("io.loop", "loop", "1")+importBOM, gav("io.none", "bom", "1")+importBOM,
					gav("com.fasterxml.jackson.core", "jackson-databind", "2.17"))+
				"<dependencies>"+deps2("<groupId>com.google.guava</groupId><artifactId>guava</artifactId>",
				"<groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-core</artifactId>",
				"<groupId>com.fasterxml.jackson.core</groupId><artifactId>jackson-databind</artifactId>",
				"<groupId>com.squareup.okio</groupId><artifactId>okio</artifactId>",
				"<groupId>org.slf4j</groupId><artifactId>slf4j-api</artifactId>")+"</dependencies>"),
		"ws/looped/pom.xml": pomText("<artifactId>looped</artifactId>", "<parent>"+gav("p", "a", "1")+"<relativePath/></parent>",
			"<dependencies>"+deps2(gav("x", "y", "1"))+"</dependencies>"),
	})
	pr := newPomReader(filepath.Join(dir, "ws"), filepath.Join(dir, "m2"), "")
	deps, err := pr.dependencies(filepath.Join(dir, "ws", "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, d := range deps {
		got = append(got, d.String())
	}
	want := []string{"com.fasterxml.jackson.core:jackson-core@2.15", "com.fasterxml.jackson.core:jackson-databind@2.17",
		"com.google.guava:guava@32.0", "com.squareup.okio:okio@3.6", "commons:commons-lang@3.0", "org.slf4j:slf4j-api@2.0", "x:y@1"}
	if !slices.Equal(got, want) {
		t.Errorf("dependencies:\n got %v\nwant %v", got, want)
	}
	r := map[string]string{}
	for _, s := range pr.skipped {
		r[s.Library] = s.Reason
	}
	if r["io.loop:loop@1"] != PomLoop || r["io.none:bom@1"] != NotDownloaded || r["p:a@1"] != PomLoop {
		t.Errorf("skipped: %+v", pr.skipped)
	}
	if !pr.own["com.corp:app"] || pr.own["com.corp:corp-parent"] {
		t.Errorf("own artifacts %v: the project's poms, not its parents", pr.own)
	}
}
