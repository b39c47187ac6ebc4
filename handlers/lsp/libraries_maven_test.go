package lsp

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/libraries"
)

// A project whose library versions come from a parent pom outside it and
// a BOM in the Maven repository, and which imports java.sql from the JDK.
func mavenFiles(t *testing.T) map[string]string {
	return map[string]string{
		"m2/org/acme/acme-bom/2.0/acme-bom-2.0.pom": `<project><groupId>org.acme</groupId><artifactId>acme-bom</artifactId><version>2.0</version>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.acme</groupId><artifactId>rockets</artifactId><version>${rockets.version}</version></dependency>
  </dependencies></dependencyManagement>
  <properties><rockets.version>2.0.1</rockets.version></properties></project>`,
		"m2/org/acme/rockets/2.0.1/rockets-2.0.1-sources.jar": jarBytes(t, map[string]string{
			"org/acme/rockets/Rocket.java": "package org.acme.rockets;\n\n/** Flies to the moon. */\npublic class Rocket {\n" +
				"    /** Lights the engine. */\n    public void launch(int seconds) {}\n    public int fuel() { return 1; }\n}\n",
		}),
		"corp/pom.xml": `<project><groupId>org.corp</groupId><artifactId>corp</artifactId><version>1</version>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.acme</groupId><artifactId>acme-bom</artifactId><version>2.0</version><type>pom</type><scope>import</scope></dependency>
    <dependency><groupId>org.gone</groupId><artifactId>gone-bom</artifactId><version>1</version><type>pom</type><scope>import</scope></dependency>
  </dependencies></dependencyManagement></project>`,
		"ws/pom.xml": `<project><parent><groupId>org.corp</groupId><artifactId>corp</artifactId><version>1</version>
  <relativePath>../corp/pom.xml</relativePath></parent><artifactId>app</artifactId>
  <dependencies><dependency><groupId>org.acme</groupId><artifactId>rockets</artifactId></dependency></dependencies></project>`,
		"jdk/release": "JAVA_VERSION=\"99.0.1\"\n",
		"jdk/lib/src.zip": jarBytes(t, map[string]string{
			"java.base/java/lang/String.java": "package java.lang;\n\npublic final class String {\n    public int length() { return 0; }\n}\n",
			"java.base/java/lang/Object.java": "package java.lang;\n\npublic class Object {\n    public boolean equals(Object o) { return false; }\n" +
				"    public final native Class<?> getClass();\n}\n",
			"java.base/java/lang/Class.java": "package java.lang;\n\npublic final class Class<T> {\n    public String getSimpleName() { return null; }\n" +
				"    public boolean isAssignableFrom(Class<?> c) { return false; }\n}\n",
			"java.sql/java/sql/Connection.java":    "package java.sql;\n\n/** A session with a database. */\npublic interface Connection {\n    void close();\n    boolean isClosed();\n}\n",
			"java.desktop/java/awt/Frame.java":     "package java.awt;\n\npublic class Frame {}\n",
			"java.net.http/java/net/http/Foo.java": "package java.net.http;\n\npublic class Foo {}\n",
		}),
		"ws/src/main/java/app/Db.java": "package app;\n\nimport java.sql.Connection;\nimport org.acme.rockets.Rocket;\n\nclass Db {\n" +
			"    void use(Connection c, Rocket r) {\n        c.close();\n        r.launch(3);\n    }\n" +
			"    String name(Object o) {\n        if (c.equals(o) && Rocket.class.isAssignableFrom(o.getClass())) {\n" +
			"            return ((Class<?>) o).getSimpleName();\n        }\n        return getClass().getSimpleName();\n    }\n    Connection c;\n}\n",
	}
}

// Java: a dependency whose version a BOM imported by an outside parent
// pom manages, and a JDK module beyond java.base that the project imports,
// answer definition, hover and completion; java.lang.Object's members
// reach every type; a JDK module not imported is not extracted; the
// missing BOM is skipped with its reason.
func TestLSPMavenBOMAndJDKModules(t *testing.T) {
	e, cache := startSourcesLSP(t, mavenFiles(t), 3, nil)
	src := filepath.ToSlash(cache) + "/kast/libsrc/"
	rocket := src + "jvm/org.acme/rockets@2.0.1/org/acme/rockets/Rocket.java"
	conn := src + "jdk/99.0.1-java.sql/java.sql/java/sql/Connection.java"
	object, class := src+"jdk/99.0.1/java.base/java/lang/Object.java", src+"jdk/99.0.1/java.base/java/lang/Class.java"
	for _, c := range []struct {
		line, char int
		want       string
	}{
		{2, 18, conn},          // import java.sql.Connection
		{6, 14, conn},          // Connection c
		{7, 11, conn + ":4"},   // c.close()
		{3, 28, rocket + ":3"}, // import ...Rocket
		{8, 11, rocket + ":5"}, // r.launch
		// java.lang.Object's members on any type, a class literal's and a
		// cast's members.
		{11, 15, object + ":3"}, // c.equals: Connection declares no equals
		{11, 42, class + ":4"},  // Rocket.class.isAssignableFrom
		{11, 60, object + ":4"}, // o.getClass()
		{12, 38, class + ":3"},  // ((Class<?>) o).getSimpleName()
		{14, 15, object + ":4"}, // getClass() in a class that declares none
		{14, 28, class + ":3"},  // getClass().getSimpleName()
	} {
		want := c.want
		if !strings.Contains(want, ".java:") {
			want += ":3"
		}
		if got := e.defAt("src/main/java/app/Db.java", c.line, c.char); got != want {
			t.Errorf("definition at %d:%d = %q, want %q", c.line, c.char, got, want)
		}
	}
	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("src/main/java/app/Db.java", 6, 14), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "interface Connection") || !strings.Contains(v, "A session with a database.") {
		t.Errorf("hover on Connection = %q", v)
	}
	text := "package app;\n\nimport java.sql.Connection;\nimport org.acme.rockets.Rocket;\n\nclass Db {\n" +
		"    void use(Connection c, Rocket r) {\n        c.\n        r.\n    }\n}\n"
	if labels := e.completionLabels("src/main/java/app/Db.java", "java", text, 7, 10); !slices.Contains(labels, "close") || !slices.Contains(labels, "isClosed") {
		t.Errorf("completion after c. = %v, want close and isClosed", labels)
	}
	if labels := e.completionLabels("src/main/java/app/Db.java", "java", text, 8, 10); !slices.Contains(labels, "launch") || !slices.Contains(labels, "fuel") {
		t.Errorf("completion after r. = %v, want launch and fuel", labels)
	}
	st := e.waitLibraries(3)
	var indexed []string
	for _, l := range st.Indexed {
		indexed = append(indexed, l.Library)
	}
	slices.Sort(indexed)
	if want := []string{"jdk/java.sql@99.0.1", "jdk@99.0.1", "org.acme:rockets@2.0.1"}; !slices.Equal(indexed, want) {
		t.Errorf("indexed %v, want %v (java.desktop and java.net.http are not imported)", indexed, want)
	}
	found := false
	for _, s := range st.Skipped {
		found = found || s.Library == "org.gone:gone-bom@1" && s.Reason == libraries.NotDownloaded
	}
	if !found {
		t.Errorf("skipped %+v, want the missing BOM as notDownloaded", st.Skipped)
	}
	if _, err := os.Stat(filepath.Join(cache, "kast", "libsrc", "jdk", "99.0.1-java.desktop")); err == nil {
		t.Errorf("java.desktop was extracted though nothing imports it")
	}
}
