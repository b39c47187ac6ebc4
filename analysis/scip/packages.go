package scip

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/kast-dev/kast/analysis/modules"
)

// A SCIP symbol names its package (manager, name, version) and then the
// path to the definition inside it. kast names packages as each ecosystem
// does, so that another repository's index that depends on this one names
// the same symbols: the Go module and import path, the Maven or Gradle
// module, the npm package, the Python distribution, the Cargo crate.

// pkg is the package a file belongs to, and the namespaces that lead from
// the package to the file's definitions.
type pkg struct {
	manager, name, version string
	// namespaces are the descriptors between the package and a file's
	// top-level definitions (Go's import path, a Java package's segments,
	// a TypeScript file's path).
	namespaces []string
}

// packages finds, and caches by folder, what the build files around a
// file say about its package. Files outside every build file are named by
// their path in a package named after the root.
type packages struct {
	root    string
	model   modules.Model
	loaded  bool
	markers map[string]marker // by folder and ecosystem: the nearest build file
}

type marker struct {
	dir, name, version string
	ok                 bool
}

func newPackages(root string) *packages {
	return &packages{root: root, markers: map[string]marker{}}
}

// of describes path's package; lang and javaPkg come from its facts.
func (p *packages) of(path, lang, declaredPkg string) pkg {
	rel := p.rel(path)
	switch lang {
	case "go":
		if m := p.nearest(path, "go.mod", readGoMod); m.ok {
			dir, _ := filepath.Rel(m.dir, filepath.Dir(path))
			importPath := m.name
			if dir = filepath.ToSlash(dir); dir != "." {
				importPath += "/" + dir
			}
			return pkg{manager: "gomod", name: m.name, version: m.version, namespaces: []string{importPath}}
		}
	case "kotlin", "java":
		name, version := p.jvmModule(path)
		var ns []string
		if declaredPkg != "" {
			ns = strings.Split(declaredPkg, ".")
		}
		if name != "" {
			return pkg{manager: "maven", name: name, version: version, namespaces: ns}
		}
		if ns != nil {
			return pkg{manager: "maven", name: filepath.Base(p.root), namespaces: ns}
		}
	case "typescript", "tsx", "javascript":
		if m := p.nearest(path, "package.json", readPackageJSON); m.ok {
			return pkg{manager: "npm", name: m.name, version: m.version, namespaces: pathNamespaces(m.dir, path)}
		}
	case "python":
		if m := p.nearest(path, "pyproject.toml", readPyproject); m.ok {
			return pkg{manager: "pip", name: m.name, version: m.version, namespaces: []string{pythonModule(m.dir, path)}}
		}
	case "rust":
		if m := p.nearest(path, "Cargo.toml", readCargo); m.ok {
			return pkg{manager: "cargo", name: m.name, version: m.version, namespaces: pathNamespaces(m.dir, path)}
		}
	}
	return pkg{name: filepath.Base(p.root), namespaces: strings.Split(rel, "/")}
}

func (p *packages) rel(path string) string {
	r, err := filepath.Rel(p.root, path)
	if err != nil {
		return filepath.ToSlash(path)
	}
	return filepath.ToSlash(r)
}

// nearest finds the closest build file called file between path's folder
// and the root that read accepts.
func (p *packages) nearest(path, file string, read func(string) (string, string, bool)) marker {
	var walked []string
	dir := filepath.Dir(path)
	found := marker{}
	for {
		key := dir + "\x00" + file
		if m, ok := p.markers[key]; ok {
			found = m
			break
		}
		walked = append(walked, key)
		if name, version, ok := read(filepath.Join(dir, file)); ok {
			found = marker{dir: dir, name: name, version: version, ok: true}
			break
		}
		if dir == p.root || !strings.HasPrefix(dir, p.root) {
			break
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir = parent
	}
	for _, k := range walked {
		p.markers[k] = found
	}
	return found
}

// jvmModule names the Gradle or Maven module holding path, with its group
// when the build file declares one ("com.example:core").
func (p *packages) jvmModule(path string) (name, version string) {
	if !p.loaded {
		p.model, p.loaded = modules.Load(p.root), true
	}
	mod, ok := p.model.ModuleOf(path)
	if !ok {
		return "", ""
	}
	group, version := buildCoordinates(mod.Dir)
	if group == "" && mod.Dir != p.root {
		group, version = buildCoordinates(p.root)
	}
	name = strings.TrimPrefix(mod.Name, ":")
	if name == "" {
		name = filepath.Base(mod.Dir)
	}
	name = strings.ReplaceAll(name, ":", "-")
	if group != "" {
		name = group + ":" + name
	}
	return name, version
}

var gradleCoordinate = regexp.MustCompile(`(?m)^\s*(group|version)\s*=\s*["']([^"']+)["']`)

// buildCoordinates reads the group and version a module's pom.xml or Gradle
// script declares.
func buildCoordinates(dir string) (group, version string) {
	if data, err := readSmall(filepath.Join(dir, "pom.xml")); err == nil {
		var pom struct {
			GroupID string `xml:"groupId"`
			Version string `xml:"version"`
			Parent  struct {
				GroupID string `xml:"groupId"`
				Version string `xml:"version"`
			} `xml:"parent"`
		}
		if xml.Unmarshal(data, &pom) == nil {
			return firstNonEmpty(pom.GroupID, pom.Parent.GroupID), firstNonEmpty(pom.Version, pom.Parent.Version)
		}
	}
	for _, script := range []string{"build.gradle.kts", "build.gradle"} {
		data, err := readSmall(filepath.Join(dir, script))
		if err != nil {
			continue
		}
		for _, m := range gradleCoordinate.FindAllStringSubmatch(string(data), -1) {
			if m[1] == "group" {
				group = m[2]
			} else {
				version = m[2]
			}
		}
		return group, version
	}
	return "", ""
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// maxBuildFile bounds what is read of a build file: a hostile or generated
// one costs no more than that.
const maxBuildFile = 1 << 20

func readSmall(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	buf := make([]byte, maxBuildFile)
	n, err := f.Read(buf)
	if n == 0 && err != nil {
		return nil, err
	}
	return buf[:n], nil
}

func readGoMod(path string) (string, string, bool) {
	data, err := readSmall(path)
	if err != nil {
		return "", "", false
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if rest, ok := strings.CutPrefix(line, "module"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
			name := strings.Trim(strings.TrimSpace(rest), `"`)
			return name, "", name != ""
		}
	}
	return "", "", false
}

func readPackageJSON(path string) (string, string, bool) {
	data, err := readSmall(path)
	if err != nil {
		return "", "", false
	}
	var pj struct{ Name, Version string }
	if json.Unmarshal(data, &pj) != nil || pj.Name == "" {
		return "", "", false
	}
	return pj.Name, pj.Version, true
}

// readPyproject reads the distribution's name and version from the
// [project] table (PEP 621) or Poetry's [tool.poetry].
func readPyproject(path string) (string, string, bool) {
	return readTOMLSection(path, "project", "tool.poetry")
}

func readCargo(path string) (string, string, bool) {
	return readTOMLSection(path, "package")
}

var tomlString = regexp.MustCompile(`^\s*(name|version)\s*=\s*["']([^"']*)["']`)

// readTOMLSection reads name and version from the first of sections that
// has a name: a line reader, since these keys are plain strings.
func readTOMLSection(path string, sections ...string) (string, string, bool) {
	data, err := readSmall(path)
	if err != nil {
		return "", "", false
	}
	values := map[string][2]string{}
	section := ""
	for line := range strings.SplitSeq(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			section = strings.Trim(t, "[] ")
			continue
		}
		if m := tomlString.FindStringSubmatch(line); m != nil {
			v := values[section]
			if m[1] == "name" {
				v[0] = m[2]
			} else {
				v[1] = m[2]
			}
			values[section] = v
		}
	}
	for _, s := range sections {
		if v := values[s]; v[0] != "" {
			return v[0], v[1], true
		}
	}
	return "", "", false
}

// pathNamespaces are the folders from a package's folder to path and the
// file's name: how JavaScript, TypeScript and Rust modules are named.
func pathNamespaces(dir, path string) []string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	return strings.Split(filepath.ToSlash(rel), "/")
}

// pythonModule is the dotted module name of path inside a distribution
// rooted at dir, a src/ layout's src/ left out.
func pythonModule(dir, path string) string {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		rel = filepath.Base(path)
	}
	rel = strings.TrimSuffix(filepath.ToSlash(rel), ".py")
	rel = strings.TrimSuffix(strings.TrimSuffix(rel, ".pyi"), "/__init__")
	rel = strings.TrimPrefix(rel, "src/")
	return strings.ReplaceAll(rel, "/", ".")
}
