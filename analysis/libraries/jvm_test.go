package libraries

import (
	"archive/zip"
	"bytes"
	"context"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func zipOf(t *testing.T, files map[string]string) string {
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

// Declared dependencies: a pom.xml's own, its modules', versions through
// properties (inherited by modules) and dependencyManagement; Gradle
// scripts' coordinates with variables; the version catalog's libraries.
func TestJVMDeclaredDependencies(t *testing.T) {
	root := t.TempDir()
	write(t, root, map[string]string{
		"pom.xml": `<project><groupId>g</groupId><artifactId>parent</artifactId><version>3.0</version>
  <properties><lib.version>1.2</lib.version></properties>
  <modules><module>core</module><module>../outside</module></modules>
  <dependencyManagement><dependencies>
    <dependency><groupId>m</groupId><artifactId>managed</artifactId><version>${lib.version}</version></dependency>
    <dependency><groupId>b</groupId><artifactId>bom</artifactId><version>1</version><scope>import</scope></dependency>
  </dependencies></dependencyManagement>
  <dependencies>
    <dependency><groupId>a</groupId><artifactId>one</artifactId><version>${lib.version}</version></dependency>
    <dependency><groupId>g</groupId><artifactId>sibling</artifactId><version>${project.version}</version></dependency>
    <dependency><groupId>u</groupId><artifactId>unknown</artifactId><version>${nope}</version></dependency>
  </dependencies></project>`,
		"core/pom.xml": `<project><parent><groupId>g</groupId><version>3.0</version></parent><artifactId>core</artifactId>
  <dependencies><dependency><groupId>c</groupId><artifactId>two</artifactId><version>${lib.version}</version></dependency>
  <dependency><groupId>m</groupId><artifactId>managed</artifactId></dependency></dependencies></project>`,
		"gradle.properties":      "okioVersion=3.6.0\n",
		"build.gradle.kts":       "plugins {\n  kotlin(\"jvm\") version \"1.9.22\"\n}\nval kotlinxVersion = \"1.7.3\"\ndependencies {\n  implementation(\"org.jetbrains.kotlinx:kotlinx-coroutines-core:$kotlinxVersion\")\n  implementation(\"com.squareup.okio:okio:${okioVersion}\")\n  testImplementation(\"junit:junit:4.13.2@jar\")\n  implementation(libs.moshi)\n}\n",
		"app/build.gradle":       "dependencies { implementation 'com.google.code.gson:gson:2.10.1' }\n",
		"settings.gradle":        "include ':app', ':libs:deep'\ninclude(\":../escape\")\n",
		"libs/deep/build.gradle": "dependencies { api \"com.squareup.okhttp3:okhttp:4.12.0\" }\n",
		"gradle/libs.versions.toml": "[versions]\nmoshi = \"1.15.0\"\n\n[libraries]\nmoshi = { module = \"com.squareup.moshi:moshi\", version.ref = \"moshi\" }\n" +
			"retrofit = { group = \"com.squareup.retrofit2\", name = \"retrofit\", version = \"2.9.0\" }\nguava = \"com.google.guava:guava:32.1.2-jre\"\n\n[plugins]\nx = { id = \"a.b\", version = \"1\" }\n",
	})
	pr := newPomReader(root, "", "")
	deps, err := pr.dependencies(filepath.Join(root, "pom.xml"))
	if err != nil {
		t.Fatal(err)
	}
	own := pr.own
	if !own["g:parent"] || !own["g:core"] || len(own) != 2 {
		t.Errorf("the project's own artifacts: %v", own)
	}
	deps = append(deps, gradleDependencies(root)...)
	var got []string
	for _, d := range deps {
		got = append(got, d.String())
	}
	slices.Sort(got)
	want := []string{"a:one@1.2", "c:two@1.2", "com.google.code.gson:gson@2.10.1", "com.google.guava:guava@32.1.2-jre",
		"com.squareup.moshi:moshi@1.15.0", "com.squareup.okhttp3:okhttp@4.12.0", "com.squareup.okio:okio@3.6.0", "com.squareup.retrofit2:retrofit@2.9.0",
		"g:sibling@3.0", "junit:junit@4.13.2", "m:managed@1.2", "org.jetbrains.kotlin:kotlin-stdlib@1.9.22", "org.jetbrains.kotlinx:kotlinx-coroutines-core@1.7.3", "u:unknown@"}
	if !slices.Equal(got, want) {
		t.Errorf("dependencies:\n got %v\nwant %v", got, want)
	}
}

func TestCompareVersions(t *testing.T) {
	sorted := []string{"1.0-alpha", "1.0-rc1", "1.0", "1.0.1", "1.2", "1.10", "2.0.0-M1", "2.0.0"}
	shuffled := slices.Clone(sorted)
	slices.Reverse(shuffled)
	slices.SortFunc(shuffled, compareVersions)
	if !slices.Equal(shuffled, sorted) {
		t.Errorf("sorted %v, want %v", shuffled, sorted)
	}
}

// A sources jar is extracted once, its Java and Kotlin files only; an
// unsafe, corrupt or oversized one is refused, and nothing of it is left.
func TestExtractSources(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"ok.jar":      zipOf(t, map[string]string{"a/A.java": "class A {}", "a/B.kt": "class B", "a/res.txt": "x", "META-INF/x/C.java": ""}),
		"slip.jar":    zipOf(t, map[string]string{"a/A.java": "", "a/../../../x.java": ""}),
		"abs.jar":     zipOf(t, map[string]string{"/etc/x.java": ""}),
		"corrupt.jar": "PK\x03\x04 truncated",
	})
	dest := filepath.Join(dir, "out", "ok@1")
	// What a process that died mid-extraction left, long ago, and what
	// one extracting now has written so far.
	stale, current := dest+".tmp-dead", dest+".tmp-live"
	write(t, dir, map[string]string{"out/ok@1.tmp-dead/a/A.java": "", "out/ok@1.tmp-live/a/A.java": ""})
	old := time.Now().Add(-2 * staleAfter)
	if err := os.Chtimes(stale, old, old); err != nil {
		t.Fatal(err)
	}
	got, err := extractSources(filepath.Join(dir, "ok.jar"), dest)
	if err != nil || got != dest {
		t.Fatal(got, err)
	}
	var files []string
	_ = filepath.WalkDir(dest, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dest, p)
			files = append(files, filepath.ToSlash(rel))
		}
		return nil
	})
	if want := []string{extractedMarker, "a/A.java", "a/B.kt"}; !slices.Equal(files, want) {
		t.Errorf("extracted %v, want %v", files, want)
	}
	if _, err := os.Stat(stale); err == nil {
		t.Error("a stale temporary folder was left")
	}
	if _, err := os.Stat(current); err != nil {
		t.Error("another process's extraction under way was removed")
	}
	if err := os.RemoveAll(current); err != nil { // checked below: none left
		t.Fatal(err)
	}
	// Once extracted, the jar is not read again.
	if err := os.WriteFile(filepath.Join(dir, "ok.jar"), []byte("gone"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := extractSources(filepath.Join(dir, "ok.jar"), dest); err != nil {
		t.Errorf("a second extraction read the jar: %v", err)
	}
	for _, bad := range []string{"slip.jar", "abs.jar", "corrupt.jar"} {
		out := filepath.Join(dir, "out", bad)
		if _, err := extractSources(filepath.Join(dir, bad), out); err == nil {
			t.Errorf("%s was extracted", bad)
		}
		if _, err := os.Stat(out); err == nil {
			t.Errorf("%s left %s behind", bad, out)
		}
	}
	left, _ := filepath.Glob(filepath.Join(dir, "out", "*.tmp-*"))
	if len(left) != 0 {
		t.Errorf("temporary folders left: %v", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "x.java")); err == nil {
		t.Error("a ../ entry was written outside")
	}
}

// Discovery: the declared version from the Maven repository, else the
// newest cached one from either cache with a reason; an artifact cached
// without sources and one in no cache are skipped with reasons.
func TestDiscoverJVM(t *testing.T) {
	dir := t.TempDir()
	jar := zipOf(t, map[string]string{"x/X.java": "package x;\nclass X {}\n"})
	files := map[string]string{
		"ws/build.gradle":                    "dependencies {\n  implementation 'a.b:lib:1.0'\n  implementation 'a.b:old:5.0'\n  implementation 'a.b:binary:1.0'\n  implementation 'a.b:none:1.0'\n  implementation 'a..b:evil:1.0'\n}\n",
		"m2/a/b/lib/1.0/lib-1.0-sources.jar": jar,
		"m2/a/b/old/1.9/old-1.9-sources.jar": jar,
		"gradle/caches/modules-2/files-2.1/a.b/old/1.10/ff/old-1.10-sources.jar": jar,
		"m2/a/b/binary/1.0/binary-1.0.jar":                                       "",
		"jdk/release":                                                            "IMPLEMENTOR=\"Test\"\nJAVA_VERSION=\"99.0.1\"\n",
		"jdk/lib/src.zip": zipOf(t, map[string]string{"java.base/java/lang/String.java": "package java.lang;\npublic final class String {}\n",
			"java.sql/java/sql/Connection.java": "package java.sql;\npublic interface Connection {}\n"}),
	}
	write(t, dir, files)
	c := &Caches{MavenRepo: filepath.Join(dir, "m2"), GradleHome: filepath.Join(dir, "gradle"), Sources: filepath.Join(dir, "src"),
		JavaHome: filepath.Join(dir, "jdk")}
	f := Discover(context.Background(), filepath.Join(dir, "ws"), Options{Caches: c})
	var libs []string
	jdk := f.Libraries[0]
	if jdk.String() != "jdk@99.0.1" || !fileExists(filepath.Join(jdk.Dir, "java.base", "java", "lang", "String.java")) ||
		fileExists(filepath.Join(jdk.Dir, "java.sql", "java", "sql", "Connection.java")) {
		t.Errorf("the JDK's java.base: %+v", jdk)
	}
	for _, l := range f.Libraries[1:] {
		libs = append(libs, l.String()+" "+filepath.ToSlash(strings.TrimPrefix(l.Dir, dir)))
		if !l.Include(filepath.Join(l.Dir, "x", "X.java")) || l.Include(filepath.Join(l.Dir, extractedMarker)) ||
			!l.Include(filepath.Join(l.Dir, "java", "security", "spec", "KeySpec.java")) {
			t.Errorf("%s: Include", l)
		}
	}
	if want := []string{"a.b:lib@1.0 /src/jvm/a.b/lib@1.0", "a.b:old@1.10 /src/jvm/a.b/old@1.10"}; !slices.Equal(libs, want) {
		t.Errorf("libraries %v, want %v", libs, want)
	}
	want := map[string]string{"a.b:old@5.0": OtherVersion, "a.b:binary@1.0": NoSources, "a.b:none@1.0": NotDownloaded, "a..b:evil@1.0": BadBuildFile}
	if r := reasons(f); !mapsEqual(r, want) {
		t.Errorf("skipped %+v, want %v", f.Skipped, want)
	}
	c.JavaHome = filepath.Join(dir, "m2") // a folder with no src.zip
	if r := reasons(Discover(context.Background(), filepath.Join(dir, "ws"), Options{Caches: c})); r["jdk"] != NoJDK {
		t.Errorf("a JDK without src.zip: %v", r)
	}
	if k := filepath.ToSlash(f.Libraries[1].Key()); k != "jvm/a.b/lib@1.0" {
		t.Errorf("Key = %s", k)
	}
}

func mapsEqual(a, b map[string]string) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return true
}

// Cargo.lock's registry and git crates (not the workspace's own), and
// Gemfile.lock's GEM specs with their platform suffixes.
func TestLockFiles(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{
		"Cargo.lock": "version = 3\n\n[[package]]\nname = \"app\"\nversion = \"0.1.0\"\ndependencies = [\n \"serde\",\n]\n\n" +
			"[[package]]\nname = \"serde\"\nversion = \"1.0.190\"\nsource = \"registry+https://github.com/rust-lang/crates.io-index\"\n\n" +
			"[[package]]\nname = \"gitdep\"\nversion = \"0.1.0\"\nsource = \"git+https://example.com/x#abc\"\n\n" +
			"[[package]]\nname = \"sparse\"\nversion = \"2.0.0\"\nsource = \"sparse+https://index.crates.io/\"\n",
		"Gemfile.lock": "GIT\n  remote: https://example.com/x.git\n  specs:\n    fromgit (0.1)\n\nGEM\n  remote: https://rubygems.org/\n  specs:\n" +
			"    nokogiri (1.15.4-x86_64-linux)\n      racc (~> 1.4)\n    racc (1.7.1)\n\nPLATFORMS\n  x86_64-linux\n",
	})
	crates, err := cargoCrates(filepath.Join(dir, "Cargo.lock"))
	if err != nil || !slices.Equal(crates, []lockedCrate{{"serde", "1.0.190", "registry+https://github.com/rust-lang/crates.io-index"},
		{"gitdep", "0.1.0", "git+https://example.com/x#abc"}, {"sparse", "2.0.0", "sparse+https://index.crates.io/"}}) {
		t.Errorf("crates %v %v", crates, err)
	}
	gems, err := lockedGems(filepath.Join(dir, "Gemfile.lock"))
	if err != nil || !slices.Equal(gems, [][2]string{{"nokogiri", "1.15.4-x86_64-linux"}, {"racc", "1.7.1"}}) {
		t.Errorf("gems %v %v", gems, err)
	}
	crate := Library{Lang: "rust", Module: "serde", Version: "1", Dir: "/r/serde-1"}
	if got := crate.CrateSourceFiles([]string{"de", "value"}); !slices.Equal(got, []string{filepath.FromSlash("/r/serde-1/src/de/value.rs"), filepath.FromSlash("/r/serde-1/src/de/value/mod.rs")}) {
		t.Errorf("CrateSourceFiles = %v", got)
	}
	for path, want := range map[string]bool{"src/lib.rs": true, "tests/t.rs": false, "benches/b.rs": false, "build.rs": true, "README.md": false,
		"src/test/mod.rs": true, ".git/x.rs": false} {
		if got := crate.Include(filepath.Join(crate.Dir, filepath.FromSlash(path))); got != want {
			t.Errorf("crate Include(%s) = %v", path, got)
		}
	}
	gem := Library{Lang: "ruby", Module: "rack", Version: "2", Dir: "/g/rack-2"}
	for path, want := range map[string]bool{"lib/rack.rb": true, "lib/rack/request.rb": true, "test/spec.rb": false, "Rakefile.rb": false,
		"lib/rack/test/methods.rb": true} {
		if got := gem.Include(filepath.Join(gem.Dir, filepath.FromSlash(path))); got != want {
			t.Errorf("gem Include(%s) = %v", path, got)
		}
	}
}
