package lsp

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/analysis/libraries"
)

// jarBytes is a zip archive holding files (by entry name), in name order.
func jarBytes(t *testing.T, files map[string]string) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, n := range slices.Sorted(maps.Keys(files)) {
		w, err := zw.Create(n)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(files[n])); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.String()
}

// startSourcesLSP serves ws/ of a tree written from files with the tree's
// m2/, gradle/, cargo/ and gems/ as the Maven repository, Gradle home,
// cargo home and gem folder (never the machine's own), and waits until
// libs libraries are indexed.
func startSourcesLSP(t *testing.T, files map[string]string, libs int, prepare func(dir string)) (*lspEnv, string) {
	t.Helper()
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	dir := t.TempDir()
	writeTree(t, dir, files)
	if prepare != nil {
		prepare(dir)
	}
	h := host.New(host.Options{Libraries: true})
	h.SetLibraryOptions(libraries.Options{Caches: &libraries.Caches{MavenRepo: filepath.Join(dir, "m2"),
		GradleHome: filepath.Join(dir, "gradle"), CargoHome: filepath.Join(dir, "cargo"),
		GemDirs: []string{filepath.Join(dir, "gems")}, NoSystemGems: true, JavaHome: filepath.Join(dir, "jdk")}})
	t.Cleanup(h.Close)
	return serveLibraryHost(t, h, dir, libs, 60*time.Second), cache
}

// The fake JVM caches: greet's sources jar in the Maven repository (Java
// and Kotlin), two versions of colors in the Gradle cache, and bad jars.
var greetJar = map[string]string{
	"META-INF/MANIFEST.MF": "Manifest-Version: 1.0\n",
	"com/example/greet/Greeter.java": "package com.example.greet;\n\n/** Greets people. */\npublic class Greeter {\n" +
		"    /** Says hello. */\n    public String hello(String name) { return \"hi \" + name; }\n\n" +
		"    public static Greeter create() { return new Greeter(); }\n}\n",
	"com/example/greet/Shouter.kt": "package com.example.greet\n\nclass Shouter {\n    fun shout(s: String): String = s\n}\n",
}

var paletteJar = map[string]string{
	"org/sample/colors/Palette.java": "package org.sample.colors;\n\npublic class Palette {\n    public static String red() { return \"red\"; }\n}\n",
}

const jvmPom = `<project>
  <modelVersion>4.0.0</modelVersion>
  <groupId>app</groupId>
  <artifactId>app</artifactId>
  <version>0.1</version>
  <properties><greet.version>1.0.0</greet.version></properties>
  <dependencies>
    <dependency><groupId>com.example</groupId><artifactId>greet</artifactId><version>${greet.version}</version></dependency>
    <dependency><groupId>com.bad</groupId><artifactId>broken</artifactId><version>1.0</version></dependency>
    <dependency><groupId>com.bad</groupId><artifactId>slip</artifactId><version>1.0</version></dependency>
    <dependency><groupId>com.none</groupId><artifactId>gone</artifactId><version>1.0</version></dependency>
  </dependencies>
</project>
`

const jvmApp = "package app;\n\nimport com.example.greet.Greeter;\nimport org.sample.colors.Palette;\n\n" +
	"public class App {\n    public static void main(String[] args) {\n        Greeter g = Greeter.create();\n" +
	"        g.hello(\"x\");\n        Palette.red();\n    }\n}\n"

const kotlinApp = "package app\n\nimport com.example.greet.Shouter\n\nfun run() {\n    val s = Shouter()\n    s.shout(\"x\")\n}\n"

func jvmFiles(t *testing.T) map[string]string {
	gradleDir := "gradle/caches/modules-2/files-2.1/org.sample/colors/"
	return map[string]string{
		"m2/com/example/greet/1.0.0/greet-1.0.0-sources.jar": jarBytes(t, greetJar),
		"m2/com/example/greet/1.0.0/greet-1.0.0.jar":         "not read",
		"m2/com/bad/broken/1.0/broken-1.0-sources.jar":       "PK\x03\x04 this is no zip archive",
		"m2/com/bad/slip/1.0/slip-1.0-sources.jar":           jarBytes(t, map[string]string{"../../evil/Evil.java": "class Evil {}\n"}),
		gradleDir + "2.0.0/aaaa/colors-2.0.0-sources.jar":    jarBytes(t, map[string]string{"org/sample/colors/Old.java": "package org.sample.colors;\nclass Old {}\n"}),
		gradleDir + "2.1.0/bbbb/colors-2.1.0-sources.jar":    jarBytes(t, paletteJar),
		"jdk/release": "JAVA_VERSION=\"99.0.1\"\n",
		"jdk/lib/src.zip": jarBytes(t, map[string]string{
			"java.base/java/lang/String.java":  "package java.lang;\n\npublic final class String {\n    public int length() { return 0; }\n}\n",
			"java.base/java/util/List.java":    "package java.util;\n\npublic interface List<E> {\n    int size();\n}\n",
			"java.desktop/java/awt/Frame.java": "package java.awt;\n\npublic class Frame {}\n",
		}),
		"ws/src/main/java/app/Std.java": "package app;\n\nimport java.util.List;\n\nclass Std {\n" +
			"    int size(List<String> xs, String s) {\n        return xs.size() + s.length();\n    }\n}\n",
		"ws/pom.xml":      jvmPom,
		"ws/build.gradle": "plugins {\n    id 'org.jetbrains.kotlin.jvm' version '1.9.0'\n}\n\ndependencies {\n    implementation 'org.sample:colors:9.9'\n}\n",
		"gradle/caches/modules-2/files-2.1/org.jetbrains.kotlin/kotlin-stdlib/1.9.0/cccc/kotlin-stdlib-1.9.0-sources.jar": jarBytes(t, map[string]string{
			"common/kotlin/collections/Collections.kt": "package kotlin.collections\n\npublic fun <T> listOf(vararg elements: T): List<T> = TODO()\n",
			"jvm/kotlin/io/Console.kt":                 "@file:JvmName(\"ConsoleKt\")\npackage kotlin.io\n\npublic fun println(message: Any?) {}\n",
		}),
		"ws/src/main/kotlin/app/Lists.kt": "package app\n\nfun lists() {\n    val xs = listOf(1, 2)\n    println(xs)\n}\n",
		"ws/src/main/java/app/App.java":   jvmApp,
		"ws/src/main/kotlin/app/Main.kt":  kotlinApp,
	}
}

// Java and Kotlin: the declared dependencies' sources jars, from the Maven
// repository and the Gradle cache, are extracted once into the shared
// cache and answer definition, hover and member completion; a version not
// cached falls back to the newest cached one; a corrupt jar, a jar with
// ../ entries and an artifact in no cache are skipped with their reasons;
// rename refuses a library target.
func TestLSPJavaKotlinIntoSourcesJars(t *testing.T) {
	e, cache := startSourcesLSP(t, jvmFiles(t), 4, nil)
	src := filepath.ToSlash(cache) + "/kast/libsrc/jvm"
	greeter := src + "/com.example/greet@1.0.0/com/example/greet/Greeter.java"
	jdk := filepath.ToSlash(cache) + "/kast/libsrc/jdk/99.0.1/java.base/java/"
	stdlib := src + "/org.jetbrains.kotlin/kotlin-stdlib@1.9.0/"
	for _, c := range []struct {
		file       string
		line, char int
		want       string
	}{
		{"src/main/java/app/App.java", 2, 28, greeter + ":3"},                                                    // import ...Greeter
		{"src/main/java/app/App.java", 7, 10, greeter + ":3"},                                                    // Greeter g
		{"src/main/java/app/App.java", 7, 30, greeter + ":7"},                                                    // Greeter.create()
		{"src/main/java/app/App.java", 8, 11, greeter + ":5"},                                                    // g.hello
		{"src/main/java/app/App.java", 9, 17, src + "/org.sample/colors@2.1.0/org/sample/colors/Palette.java:3"}, // Palette.red
		{"src/main/kotlin/app/Main.kt", 5, 13, src + "/com.example/greet@1.0.0/com/example/greet/Shouter.kt:2"},
		{"src/main/kotlin/app/Main.kt", 6, 7, src + "/com.example/greet@1.0.0/com/example/greet/Shouter.kt:3"},
		// The JDK's java.base: an import, java.lang without one, members.
		{"src/main/java/app/Std.java", 2, 18, jdk + "util/List.java:2"},
		{"src/main/java/app/Std.java", 5, 14, jdk + "util/List.java:2"},
		{"src/main/java/app/Std.java", 5, 31, jdk + "lang/String.java:2"},
		{"src/main/java/app/Std.java", 6, 19, jdk + "util/List.java:3"},
		{"src/main/java/app/Std.java", 6, 30, jdk + "lang/String.java:3"},
		// kotlin-stdlib at the Kotlin plugin's version: default imports.
		{"src/main/kotlin/app/Lists.kt", 3, 14, stdlib + "common/kotlin/collections/Collections.kt:2"},
		{"src/main/kotlin/app/Lists.kt", 4, 5, stdlib + "jvm/kotlin/io/Console.kt:3"},
	} {
		if got := e.defAt(c.file, c.line, c.char); got != c.want {
			t.Errorf("definition at %s:%d:%d = %q, want %q", c.file, c.line, c.char, got, c.want)
		}
	}

	var hover struct {
		Contents struct{ Value string } `json:"contents"`
	}
	if err := e.client.Call(e.ctx, "textDocument/hover", e.at("src/main/java/app/App.java", 8, 11), &hover); err != nil {
		t.Fatal(err)
	}
	if v := hover.Contents.Value; !strings.Contains(v, "String hello(String name)") || !strings.Contains(v, "Says hello.") {
		t.Errorf("hover on g.hello = %q", v)
	}

	app := e.uri("src/main/java/app/App.java")
	edited := strings.Replace(jvmApp, "g.hello(\"x\");", "g.", 1)
	if err := e.client.DidOpen(app, "java", 1, edited); err != nil {
		t.Fatal(err)
	}
	var list struct {
		Items []struct{ Label string } `json:"items"`
	}
	if err := e.client.Call(e.ctx, "textDocument/completion", e.at("src/main/java/app/App.java", 8, 10), &list); err != nil {
		t.Fatal(err)
	}
	var labels []string
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "hello") {
		t.Errorf("completion after g. = %v, want hello among them", labels)
	}
	if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": app}}); err != nil {
		t.Fatal(err)
	}
	kt := e.uri("src/main/kotlin/app/Main.kt")
	if err := e.client.DidOpen(kt, "kotlin", 1, strings.Replace(kotlinApp, "s.shout(\"x\")", "s.", 1)); err != nil {
		t.Fatal(err)
	}
	list.Items = nil
	if err := e.client.Call(e.ctx, "textDocument/completion", e.at("src/main/kotlin/app/Main.kt", 6, 6), &list); err != nil {
		t.Fatal(err)
	}
	labels = labels[:0]
	for _, it := range list.Items {
		labels = append(labels, it.Label)
	}
	if !slices.Contains(labels, "shout") {
		t.Errorf("completion after s. in Kotlin = %v, want shout among them", labels)
	}
	if err := e.client.Notify("textDocument/didClose", map[string]any{"textDocument": map[string]string{"uri": kt}}); err != nil {
		t.Fatal(err)
	}

	var rename json.RawMessage
	err := e.client.Call(e.ctx, "textDocument/rename", map[string]any{"textDocument": map[string]string{"uri": app},
		"position": map[string]int{"line": 8, "character": 11}, "newName": "greet"}, &rename)
	if err == nil || !strings.Contains(err.Error(), "library com.example:greet@1.0.0") {
		t.Errorf("rename of g.hello: %v %s, want a refusal naming the library", err, rename)
	}

	st := e.waitLibraries(4)
	reasons := map[string]string{}
	for _, s := range st.Skipped {
		reasons[s.Library] = s.Reason
	}
	for lib, want := range map[string]string{"org.sample:colors@9.9": libraries.OtherVersion, "com.bad:broken@1.0": libraries.BadArchive,
		"com.bad:slip@1.0": libraries.BadArchive, "com.none:gone@1.0": libraries.NotDownloaded} {
		if reasons[lib] != want {
			t.Errorf("%s skipped for %q, want %q (all: %+v)", lib, reasons[lib], want, st.Skipped)
		}
	}
	_ = filepath.WalkDir(cache, func(p string, d os.DirEntry, err error) error {
		if err == nil && strings.Contains(p, "slip") || strings.HasSuffix(p, "Evil.java") {
			t.Errorf("the jar with a ../ entry was extracted: %s", p)
		}
		return nil
	})
}
