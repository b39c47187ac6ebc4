package libraries

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Java and Kotlin libraries: the -sources.jar of each dependency the build
// declares (pom.xml, build.gradle(.kts), gradle/libs.versions.toml), as
// found in the local Maven repository or the Gradle cache. Each jar is
// extracted once into the shared sources folder (jar.go) and indexed like
// any other library.

// More JVM skip reasons.
const (
	OtherVersion = "otherVersion" // the declared version is not cached: the newest cached one is used
	NoSources    = "noSources"    // the artifact is cached without its -sources.jar
	BadArchive   = "badArchive"   // a jar that is corrupt, unsafe (entries outside it) or too large
	BadBuildFile = "badBuildFile" // pom.xml that cannot be parsed
)

// Caches overrides where the JVM, Rust and Ruby package caches are; an
// empty field is read from the environment (tests point them at fake ones).
type Caches struct {
	MavenRepo  string   // the local Maven repository (~/.m2/repository)
	GradleHome string   // the Gradle user home ($GRADLE_USER_HOME, ~/.gradle)
	CargoHome  string   // $CARGO_HOME, ~/.cargo
	GemDirs    []string // gem installation folders, each holding gems/ (GEM_HOME, GEM_PATH, ...)
	// JavaHome is the JDK whose lib/src.zip is the Java standard library
	// ($JAVA_HOME, else the java on PATH).
	JavaHome string
	// NoSystemGems leaves out the machine's own gem folders (/var/lib/gems...).
	NoSystemGems bool
	// Sources is where jars are extracted; "" is the user cache's
	// kast/libsrc (beside the library indexes).
	Sources string
}

// artifact is a Maven coordinate the build declares; Version may be "".
type artifact struct{ Group, Name, Version string }

func (a artifact) String() string { return a.Group + ":" + a.Name + "@" + a.Version }

// jvmProject reports whether root is built by Maven or Gradle.
func jvmProject(root string) bool {
	for _, marker := range []string{"pom.xml", "build.gradle", "build.gradle.kts", "settings.gradle", "settings.gradle.kts"} {
		if fileExists(filepath.Join(root, marker)) {
			return true
		}
	}
	return false
}

func (f *Found) discoverJVM(ctx context.Context, root string, c Caches) {
	repo, gradle := mavenRepo(root, c), gradleFiles(c)
	var deps []artifact
	if fileExists(filepath.Join(root, "pom.xml")) {
		pr := newPomReader(root, repo, gradle)
		d, err := pr.dependencies(filepath.Join(root, "pom.xml"))
		if err != nil {
			f.Skipped = append(f.Skipped, Skip{Library: filepath.Join(root, "pom.xml"), Reason: BadBuildFile, Detail: err.Error()})
		}
		f.Skipped = append(f.Skipped, pr.skipped...)
		// A module depending on a sibling module depends on the user's
		// own sources, not on a library.
		deps = append(deps, slices.DeleteFunc(d, func(a artifact) bool { return pr.own[a.Group+":"+a.Name] })...)
	}
	deps = append(deps, gradleDependencies(root)...)
	slices.SortFunc(deps, func(a, b artifact) int { return strings.Compare(a.String(), b.String()) })
	deps = slices.Compact(deps)
	f.discoverJDK(c, jvmImports(root))
	seen := map[string]bool{}
	for _, d := range deps {
		if ctx.Err() != nil {
			return // extracting the rest would hold up the close
		}
		jar, version, skip := findSourcesJar(repo, gradle, d)
		if skip != nil {
			f.Skipped = append(f.Skipped, *skip)
		}
		if jar == "" {
			continue
		}
		lib := Library{Lang: "jvm", Module: d.Group + ":" + d.Name, Version: version}
		if seen[lib.String()] {
			continue
		}
		seen[lib.String()] = true
		dir, err := extractSources(jar, filepath.Join(sourcesRoot(c), "jvm", filepath.FromSlash(d.Group), d.Name+"@"+version))
		if err != nil {
			f.Skipped = append(f.Skipped, Skip{Library: lib.String(), Reason: BadArchive, Detail: err.Error()})
			continue
		}
		lib.Dir = dir
		f.Libraries = append(f.Libraries, lib)
	}
}

// gradleCoordinate is a quoted "group:name:version" string in a Gradle
// build script, a classifier or @type after the version allowed.
var gradleCoordinate = regexp.MustCompile(`["']([A-Za-z0-9_.\-]+):([A-Za-z0-9_.\-]+):([A-Za-z0-9_.\-+${}]+?)(?::[A-Za-z0-9_.\-]+)?(?:@[a-z]+)?["']`)

// gradleAssignment is `name = "value"` (Groovy def/val/ext alike) or a
// gradle.properties line.
var gradleAssignment = regexp.MustCompile(`(?m)^\s*(?:(?:def|val|var|ext\.)\s*)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*["']?([A-Za-z0-9_.\-+]+)["']?\s*$`)

var gradleVariable = regexp.MustCompile(`\$\{?([A-Za-z_][A-Za-z0-9_.]*)\}?`)

// gradleDependencies lists the "g:a:v" strings of the root's and its
// subprojects' build scripts, and the version catalog's libraries.
func gradleDependencies(root string) []artifact {
	scripts, _ := filepath.Glob(filepath.Join(root, "build.gradle*"))
	sub, _ := filepath.Glob(filepath.Join(root, "*", "build.gradle*"))
	scripts = append(scripts, sub...)
	for _, dir := range gradleIncludes(root) {
		if nested, _ := filepath.Glob(filepath.Join(root, dir, "build.gradle*")); filepath.Dir(dir) != "." {
			scripts = append(scripts, nested...)
		}
	}
	vars := map[string]string{}
	var texts []string
	for _, name := range append([]string{filepath.Join(root, "gradle.properties")}, scripts...) {
		data, err := readSmall(name)
		if err != nil {
			continue
		}
		for _, m := range gradleAssignment.FindAllStringSubmatch(string(data), -1) {
			vars[strings.TrimPrefix(m[1], "ext.")] = m[2]
		}
		if strings.Contains(filepath.Base(name), "build.gradle") {
			texts = append(texts, string(data))
		}
	}
	var out []artifact
	for _, text := range texts {
		for _, m := range gradleCoordinate.FindAllStringSubmatch(text, -1) {
			v := gradleVariable.ReplaceAllStringFunc(m[3], func(s string) string {
				if val, ok := vars[strings.Trim(s, "${}")]; ok {
					return val
				}
				return s
			})
			if strings.Contains(v, "$") {
				v = ""
			}
			out = append(out, artifact{m[1], m[2], v})
		}
	}
	out = append(out, versionCatalog(filepath.Join(root, "gradle", "libs.versions.toml"))...)
	if a, ok := kotlinStdlib(root, texts); ok {
		out = append(out, a)
	}
	return out
}

var (
	kotlinPlugin    = regexp.MustCompile(`(?:kotlin\(\s*"[a-z.\-]+"\s*\)|id\s*\(?\s*["']org\.jetbrains\.kotlin\.[a-z.\-]+["']\s*\)?)\s*version\s*["']([^"']+)["']`)
	catalogKotlin   = regexp.MustCompile(`(?m)^\s*kotlin\s*=\s*"([^"]+)"`)
	kotlinInScripts = regexp.MustCompile(`org\.jetbrains\.kotlin\b|kotlin\(\s*"`)
)

// kotlinStdlib is the kotlin-stdlib a Gradle build with the Kotlin plugin
// compiles against, at the plugin's version (the scripts', else the
// catalog's "kotlin" version, else the newest cached); the plugin adds it
// without the scripts declaring it.
func kotlinStdlib(root string, scripts []string) (artifact, bool) {
	found := false
	version := ""
	for _, text := range scripts {
		found = found || kotlinInScripts.MatchString(text)
		if m := kotlinPlugin.FindStringSubmatch(text); m != nil && version == "" && !strings.Contains(m[1], "$") {
			version = m[1]
		}
	}
	if !found {
		return artifact{}, false
	}
	if version == "" {
		if data, err := readSmall(filepath.Join(root, "gradle", "libs.versions.toml")); err == nil {
			if m := catalogKotlin.FindSubmatch(data); m != nil {
				version = string(m[1])
			}
		}
	}
	return artifact{"org.jetbrains.kotlin", "kotlin-stdlib", version}, true
}

var (
	gradleInclude = regexp.MustCompile(`(?m)^\s*include\b(.*)$`)
	quoted        = regexp.MustCompile(`["']([^"']+)["']`)
)

// gradleIncludes lists the folders of the projects settings.gradle(.kts)
// includes (":libs:core" is libs/core), those inside root only.
func gradleIncludes(root string) []string {
	var out []string
	for _, name := range []string{"settings.gradle", "settings.gradle.kts"} {
		data, err := readSmall(filepath.Join(root, name))
		if err != nil {
			continue
		}
		for _, m := range gradleInclude.FindAllStringSubmatch(string(data), -1) {
			for _, q := range quoted.FindAllStringSubmatch(m[1], -1) {
				dir := filepath.FromSlash(strings.ReplaceAll(strings.TrimPrefix(q[1], ":"), ":", "/"))
				if within(root, filepath.Join(root, dir)) {
					out = append(out, dir)
				}
			}
		}
	}
	return out
}

var (
	catalogString = regexp.MustCompile(`^[A-Za-z0-9_.\-]+\s*=\s*"([^":]+):([^":]+):([^"]+)"`)
	catalogModule = regexp.MustCompile(`module\s*=\s*"([^":]+):([^"]+)"`)
	catalogGroup  = regexp.MustCompile(`group\s*=\s*"([^"]+)"`)
	catalogName   = regexp.MustCompile(`\bname\s*=\s*"([^"]+)"`)
	catalogVer    = regexp.MustCompile(`version\s*=\s*"([^"]+)"`)
	catalogVerRef = regexp.MustCompile(`version\.ref\s*=\s*"([^"]+)"`)
	catalogKV     = regexp.MustCompile(`^([A-Za-z0-9_.\-]+)\s*=\s*"([^"]+)"`)
)

// versionCatalog reads a Gradle version catalog's [libraries], its inline
// tables one a line as TOML has them, versions by value or by reference.
func versionCatalog(file string) []artifact {
	data, err := readSmall(file)
	if err != nil {
		return nil
	}
	versions := map[string]string{}
	var out []artifact
	section := ""
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		switch section {
		case "versions":
			if m := catalogKV.FindStringSubmatch(line); m != nil {
				versions[m[1]] = m[2]
			}
		case "libraries":
			if m := catalogString.FindStringSubmatch(line); m != nil {
				out = append(out, artifact{m[1], m[2], m[3]})
				continue
			}
			var a artifact
			if m := catalogModule.FindStringSubmatch(line); m != nil {
				a.Group, a.Name = m[1], m[2]
			} else if g, n := catalogGroup.FindStringSubmatch(line), catalogName.FindStringSubmatch(line); g != nil && n != nil {
				a.Group, a.Name = g[1], n[1]
			} else {
				continue
			}
			if m := catalogVerRef.FindStringSubmatch(line); m != nil {
				a.Version = versions[m[1]]
			} else if m := catalogVer.FindStringSubmatch(line); m != nil {
				a.Version = m[1]
			}
			out = append(out, a)
		}
	}
	return out
}

// maxBuildFile bounds the build files discovery reads.
const maxBuildFile = 4 << 20

func readSmall(name string) ([]byte, error) {
	fi, err := os.Stat(name)
	if err != nil {
		return nil, err
	}
	if fi.Size() > maxBuildFile {
		return nil, errTooLarge
	}
	return os.ReadFile(name)
}

func nonBlank(a, b string) string {
	if strings.TrimSpace(a) != "" {
		return a
	}
	return b
}

// within reports whether path is root or under it, lexically.
func within(root, path string) bool {
	rel, err := filepath.Rel(root, path)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}
