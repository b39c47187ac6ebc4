package libraries

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// The Java standard library: the java.base module of the JDK in use
// ($JAVA_HOME, else the java on PATH), from the lib/src.zip the JDK ships,
// extracted once per JDK version like a sources jar. Only java.base (or a
// JDK 8 src.zip's java/ tree) is kept: the rest (desktop, compiler, tools)
// would cost more to index than it answers.

// NoJDK is the reason the Java standard library is skipped: no JDK, or one
// without lib/src.zip (Debian ships it in openjdk-*-source).
const NoJDK = "noJDK"

func (f *Found) discoverJDK(c Caches) {
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
	dir, err := extractArchive(src, filepath.Join(sourcesRoot(c), "jdk", version), jdkSource)
	if err != nil {
		f.Skipped = append(f.Skipped, Skip{Library: lib.String(), Reason: BadArchive, Detail: err.Error()})
		return
	}
	lib.Dir = dir
	f.Libraries = append(f.Libraries, lib)
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

// jdkSource keeps java.base's sources (or a JDK 8 src.zip's java/ tree).
func jdkSource(name string) bool {
	return (strings.HasPrefix(name, "java.base/") || strings.HasPrefix(name, "java/")) && strings.HasSuffix(name, ".java")
}
