package libraries

import (
	"archive/zip"
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// The Java standard library: the modules of the JDK in use ($JAVA_HOME,
// else the java on PATH), from the lib/src.zip the JDK ships, extracted
// once per JDK version like a sources jar. java.base (or a JDK 8
// src.zip's java/ tree) always; another module (java.sql, java.net.http,
// java.desktop, ...) only when the project's imports name one of its
// packages: all of them would cost more to index than they answer.

// NoJDK is the reason the Java standard library is skipped: no JDK, or one
// without lib/src.zip (Debian ships it in openjdk-*-source).
const NoJDK = "noJDK"

// discoverJDK adds java.base and the JDK modules holding the packages
// imported names.
func (f *Found) discoverJDK(c Caches, imported []string) {
	home := c.JavaHome
	if home == "" {
		home = javaHome()
	}
	if home == "" {
		f.Skipped = append(f.Skipped, Skip{Library: "jdk", Reason: NoJDK, Detail: "no JAVA_HOME and no java on PATH"})
		return
	}
	src := filepath.Join(home, "lib", "src.zip")
	if !fileExists(src) {
		src = filepath.Join(home, "src.zip") // JDK 8
	}
	if !fileExists(src) {
		f.Skipped = append(f.Skipped, Skip{Library: "jdk", Reason: NoJDK, Detail: home + " has no lib/src.zip"})
		return
	}
	version := jdkVersion(home)
	lib := Library{Lang: "jvm", Module: "jdk", Version: version}
	dir, err := extractArchive(src, filepath.Join(sourcesRoot(c), "jdk", version), jdkSource("java.base"))
	if err != nil {
		f.Skipped = append(f.Skipped, Skip{Library: lib.String(), Reason: BadArchive, Detail: err.Error()})
		return
	}
	lib.Dir = dir
	f.Libraries = append(f.Libraries, lib)
	for _, mod := range jdkModulesFor(src, imported) {
		lib := Library{Lang: "jvm", Module: "jdk/" + mod, Version: version}
		dir, err := extractArchive(src, filepath.Join(sourcesRoot(c), "jdk", version+"-"+mod), jdkSource(mod))
		if err != nil {
			f.Skipped = append(f.Skipped, Skip{Library: lib.String(), Reason: BadArchive, Detail: err.Error()})
			continue
		}
		lib.Dir = dir
		f.Libraries = append(f.Libraries, lib)
	}
}

// jdkModulesFor lists the modules of src.zip other than java.base that
// hold an imported package, read from the archive's directory (cheap:
// no entry is decompressed). An import names a package or a type in one
// (java.util.Map.Entry): each of its prefixes is tried.
func jdkModulesFor(src string, imported []string) []string {
	if len(imported) == 0 {
		return nil
	}
	zr, err := zip.OpenReader(src)
	if err != nil {
		return nil // extracting java.base reported it
	}
	defer zr.Close()
	moduleOf := map[string]string{} // package path → module
	for _, e := range zr.File {
		mod, rest, ok := strings.Cut(e.Name, "/")
		if !ok || mod == "java.base" || !strings.HasSuffix(rest, ".java") || !strings.Contains(mod, ".") {
			continue
		}
		pkg := rest[:max(0, strings.LastIndex(rest, "/"))]
		if _, ok := moduleOf[pkg]; !ok && pkg != "" {
			moduleOf[pkg] = mod
		}
	}
	var out []string
	for _, imp := range imported {
		path := strings.ReplaceAll(imp, ".", "/")
		for path != "" {
			if mod, ok := moduleOf[path]; ok {
				out = append(out, mod)
				break
			}
			path = path[:max(0, strings.LastIndex(path, "/"))]
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// javaHome is $JAVA_HOME, else the JDK the java on PATH belongs to.
func javaHome() string {
	if h := os.Getenv("JAVA_HOME"); h != "" && filepath.IsAbs(h) {
		return h
	}
	java, err := exec.LookPath("java")
	if err != nil {
		return ""
	}
	real, err := filepath.EvalSymlinks(java)
	if err != nil {
		return ""
	}
	return filepath.Dir(filepath.Dir(real))
}

// jdkVersion is the release file's JAVA_VERSION, else a name made from
// the JDK's folder.
func jdkVersion(home string) string {
	if file, err := os.Open(filepath.Join(home, "release")); err == nil {
		defer file.Close()
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "JAVA_VERSION="); ok && strings.Trim(v, `"`) != "" {
				return strings.Trim(v, `"`)
			}
		}
	}
	return "local-" + shortHash(home)
}

// jdkSource keeps one module's sources (for java.base, also a JDK 8
// src.zip's java/ tree).
func jdkSource(module string) func(name string) bool {
	return func(name string) bool {
		return (strings.HasPrefix(name, module+"/") || module == "java.base" && strings.HasPrefix(name, "java/")) && strings.HasSuffix(name, ".java")
	}
}
