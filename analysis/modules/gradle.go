package modules

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
)

// Gradle settings and build scripts, Groovy or Kotlin DSL, read as text.

var (
	// includeCall is an include statement: `include(":a", ":b")`,
	// `include ':a', ':b'`, with its arguments up to the end of the call or line.
	includeCall = regexp.MustCompile(`(?m)^\s*include\s*(\(([^)]*)\)|([^\n]*))`)
	quoted      = regexp.MustCompile(`["']([^"'\n]*)["']`)
	// projectDirSet is `project(":x").projectDir = file("dir")` or
	// `new File(settingsDir, "dir")`, or `file("$rootDir/dir")`.
	projectDirSet = regexp.MustCompile(`project\(\s*["']([^"']+)["']\s*\)\s*\.projectDir\s*=\s*(?:file|new\s+File|File)\s*\(([^)\n]*)\)`)
	// projectDep is a dependency on another project of the build.
	projectDep = regexp.MustCompile(`project\(\s*(?:path\s*[:=]\s*)?["'](:[^"']*)["']`)
	// accessorDep is a type-safe project accessor: `projects.core.util`.
	accessorDep = regexp.MustCompile(`\bprojects((?:\.[A-Za-z_][A-Za-z0-9_]*)+)`)
)

func loadGradle(root string) Model {
	var m Model
	settings, name := "", "settings.gradle.kts"
	for _, n := range []string{"settings.gradle.kts", "settings.gradle"} {
		if s, ok := readBuildFile(filepath.Join(root, n)); ok {
			settings, name = stripComments(s), n
			break
		}
	}
	dirs := map[string]string{":": root}
	order := []string{":"}
	for _, call := range includeCall.FindAllStringSubmatch(settings, -1) {
		args := call[2] + call[3]
		if strings.Count(args, "\"")%2 != 0 || strings.Count(args, "'")%2 != 0 {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: cannot read the include %q", name, strings.TrimSpace(call[0])))
			continue
		}
		for _, q := range quoted.FindAllStringSubmatch(args, -1) {
			path := gradlePath(q[1])
			if path == ":" || dirs[path] != "" {
				continue
			}
			if len(order) >= maxModules {
				m.Problems = append(m.Problems, fmt.Sprintf("%s: more than %d projects; the rest are left out", name, maxModules))
				break
			}
			dirs[path] = filepath.Join(root, filepath.FromSlash(strings.ReplaceAll(strings.TrimPrefix(path, ":"), ":", "/")))
			order = append(order, path)
		}
	}
	for _, set := range projectDirSet.FindAllStringSubmatch(settings, -1) {
		path := gradlePath(set[1])
		if _, ok := dirs[path]; !ok {
			continue
		}
		if dir, ok := projectDirArg(root, set[2]); ok {
			dirs[path] = dir
		} else {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: cannot read the folder of %s", name, path))
		}
	}
	known := map[string]bool{}
	for _, p := range order {
		known[p] = true
	}
	byAccessor := map[string]string{}
	for _, p := range order {
		byAccessor[accessorKey(strings.ReplaceAll(p, ":", "."))] = p
	}
	for _, path := range order {
		dir := dirs[path]
		if !isDir(dir) {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: %s is included but its folder %s is missing", name, path, dir))
			continue
		}
		mod := Module{Name: path, Dir: dir, Dependencies: []string{}}
		for _, b := range []string{"build.gradle.kts", "build.gradle"} {
			script, ok := readBuildFile(filepath.Join(dir, b))
			if !ok {
				continue
			}
			script = stripComments(script)
			for _, d := range projectDep.FindAllStringSubmatchIndex(script, -1) {
				if dep := gradlePath(script[d[2]:d[3]]); dep != path && known[dep] {
					mod.addDependency(dep, testScoped(script, d[0]))
				}
			}
			for _, d := range accessorDep.FindAllStringSubmatchIndex(script, -1) {
				if dep, ok := accessorMatch(byAccessor, script[d[2]:d[3]]); ok && dep != path {
					mod.addDependency(dep, testScoped(script, d[0]))
				}
			}
			break
		}
		if path == ":" && len(order) > 1 && len(sourceRoots(dir)) == 0 {
			// A root project that only aggregates is no module of its own.
			continue
		}
		m.Modules = append(m.Modules, mod)
	}
	return m
}

// gradlePath makes an include argument a project path: "a:b" → ":a:b".
func gradlePath(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, ":") {
		s = ":" + s
	}
	if len(s) > 1 {
		s = strings.TrimSuffix(s, ":")
	}
	return s
}

// projectDirArg reads the folder of `file("x")`, `file("$rootDir/x")` or
// `File(settingsDir, "x")`.
func projectDirArg(root, args string) (string, bool) {
	qs := quoted.FindAllStringSubmatch(args, -1)
	if len(qs) == 0 {
		return "", false
	}
	rel := qs[len(qs)-1][1]
	for _, v := range []string{"$rootDir/", "${rootDir}/", "$settingsDir/", "${settingsDir}/", "$rootDir", "${rootDir}"} {
		rel = strings.TrimPrefix(rel, v)
	}
	if strings.Contains(rel, "$") {
		return "", false
	}
	if filepath.IsAbs(rel) {
		return filepath.Clean(rel), true
	}
	return filepath.Join(root, filepath.FromSlash(rel)), true
}

// accessorKey normalizes a project path or accessor chain the way Gradle's
// type-safe accessors name projects: kebab and snake case become camel case,
// compared without case.
func accessorKey(s string) string {
	return strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(strings.TrimPrefix(s, ".")))
}

// accessorMatch finds the project a `projects.a.b` chain names; the chain
// may go on into the project's properties (`projects.core.dependencyProject`).
func accessorMatch(byAccessor map[string]string, chain string) (string, bool) {
	key := accessorKey(chain)
	for {
		if p, ok := byAccessor["."+key]; ok {
			return p, true
		}
		if p, ok := byAccessor[key]; ok {
			return p, true
		}
		i := strings.LastIndexByte(key, '.')
		if i < 0 {
			return "", false
		}
		key = key[:i]
	}
}

// stripComments blanks // line and /* */ block comments outside strings,
// so a commented-out include is not read.
func stripComments(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"' || s[i] == '\'':
			q := s[i]
			j := i + 1
			for j < len(s) && s[j] != q && s[j] != '\n' {
				if s[j] == '\\' {
					j++
				}
				j++
			}
			end := min(j+1, len(s))
			b.WriteString(s[i:end])
			i = end - 1
		case strings.HasPrefix(s[i:], "//"):
			for i < len(s) && s[i] != '\n' {
				i++
			}
			if i < len(s) {
				b.WriteByte('\n')
			}
		case strings.HasPrefix(s[i:], "/*"):
			end := strings.Index(s[i+2:], "*/")
			if end < 0 {
				return b.String()
			}
			i += end + 3
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}

// testScoped reports whether the dependency written at offset i belongs to
// tests: its configuration (testImplementation) or an enclosing block
// (jvmTest { dependencies { … } }) says so.
func testScoped(script string, i int) bool {
	lineStart := strings.LastIndexByte(script[:i], '\n') + 1
	if strings.Contains(strings.ToLower(script[lineStart:i]), "test") {
		return true
	}
	depth := 0
	for j := i - 1; j >= 0; j-- {
		switch script[j] {
		case '}':
			depth++
		case '{':
			if depth > 0 {
				depth--
				continue
			}
			start := strings.LastIndexByte(script[:j], '\n') + 1
			if strings.Contains(strings.ToLower(script[start:j]), "test") {
				return true
			}
		}
	}
	return false
}
