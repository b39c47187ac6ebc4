// Package modules reads a workspace's build model from its build files, as
// text, never running Gradle or Maven: the modules of a Gradle build
// (settings includes, projectDir overrides, `project(":x")` dependencies)
// or a Maven reactor (pom.xml modules and dependencies), each with the
// source roots it has on disk. What cannot be read is reported, not fatal.
package modules

import (
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
)

// Module is one module of the build.
type Module struct {
	// Name is the Gradle project path (":domains:alpha:two", ":" for the
	// root project) or the Maven artifactId.
	Name string
	// Dir is the module's folder, absolute.
	Dir string
	// SourceRoots are the module's source folders that exist, absolute:
	// src/<source set>/{kotlin,java} (main, test, commonMain, jvmMain, …).
	SourceRoots []string
	// Dependencies are the names of the modules this one depends on.
	Dependencies []string
	// testOnly are the dependencies only its tests have: a main module's
	// tests may use a module that uses it without a cycle.
	testOnly map[string]bool
}

// addDependency records a dependency, test-scoped or not.
func (m *Module) addDependency(name string, test bool) {
	if !slices.Contains(m.Dependencies, name) {
		m.Dependencies = append(m.Dependencies, name)
		if test {
			if m.testOnly == nil {
				m.testOnly = map[string]bool{}
			}
			m.testOnly[name] = true
		}
	} else if !test {
		delete(m.testOnly, name)
	}
}

// Model is a workspace's modules and what went wrong reading them.
type Model struct {
	Modules []Module
	// Problems says, one line each, which build files could not be read,
	// which included folders are missing and which dependencies cycle.
	Problems []string
}

// Limits that keep a generated or hostile build from costing much.
const (
	maxModules   = 5000
	maxBuildFile = 1 << 20
)

// Load reads the build model of the workspace at root: Gradle when root has
// a settings or build script, else Maven when it has a pom.xml. A workspace
// with neither has no modules.
func Load(root string) Model {
	root = filepath.Clean(root)
	var m Model
	switch {
	case exists(filepath.Join(root, "settings.gradle.kts")), exists(filepath.Join(root, "settings.gradle")),
		exists(filepath.Join(root, "build.gradle.kts")), exists(filepath.Join(root, "build.gradle")):
		m = loadGradle(root)
	case exists(filepath.Join(root, "pom.xml")):
		m = loadMaven(root)
	default:
		return Model{}
	}
	for i := range m.Modules {
		m.Modules[i].SourceRoots = sourceRoots(m.Modules[i].Dir)
		slices.Sort(m.Modules[i].Dependencies)
		m.Modules[i].Dependencies = slices.Compact(m.Modules[i].Dependencies)
	}
	sort.Slice(m.Modules, func(i, j int) bool { return m.Modules[i].Name < m.Modules[j].Name })
	m.Problems = append(m.Problems, m.cycles()...)
	return m
}

// ModuleOf returns the module a file belongs to: the one whose source root,
// else folder, holds it most closely.
func (m Model) ModuleOf(path string) (Module, bool) {
	best, bestLen := -1, -1
	for i, mod := range m.Modules {
		for _, dir := range append(slices.Clone(mod.SourceRoots), mod.Dir) {
			if within(path, dir) && len(dir) > bestLen {
				best, bestLen = i, len(dir)
			}
		}
	}
	if best < 0 {
		return Module{}, false
	}
	return m.Modules[best], true
}

// Names lists the modules' names, sorted.
func (m Model) Names() []string {
	out := make([]string, len(m.Modules))
	for i, mod := range m.Modules {
		out[i] = mod.Name
	}
	return out
}

// Module returns the module called name.
func (m Model) Module(name string) (Module, bool) {
	for _, mod := range m.Modules {
		if mod.Name == name {
			return mod, true
		}
	}
	return Module{}, false
}

// Dependents maps each module to the modules that depend on it, directly or
// through others, sorted; every module has an entry.
func (m Model) Dependents() map[string][]string {
	direct := map[string][]string{}
	for _, mod := range m.Modules {
		for _, d := range mod.Dependencies {
			direct[d] = append(direct[d], mod.Name)
		}
	}
	out := map[string][]string{}
	for _, mod := range m.Modules {
		seen := map[string]bool{mod.Name: true}
		queue := slices.Clone(direct[mod.Name])
		var all []string
		for len(queue) > 0 {
			n := queue[0]
			queue = queue[1:]
			if seen[n] {
				continue
			}
			seen[n] = true
			all = append(all, n)
			queue = append(queue, direct[n]...)
		}
		slices.Sort(all)
		out[mod.Name] = append([]string{}, all...)
	}
	return out
}

// cycles reports each dependency cycle once.
func (m Model) cycles() []string {
	deps := map[string][]string{}
	for _, mod := range m.Modules {
		for _, d := range mod.Dependencies {
			if !mod.testOnly[d] {
				deps[mod.Name] = append(deps[mod.Name], d)
			}
		}
		if _, ok := deps[mod.Name]; !ok {
			deps[mod.Name] = nil
		}
	}
	const (
		unseen = iota
		onStack
		done
	)
	state := map[string]int{}
	var stack []string
	var out []string
	var visit func(n string)
	visit = func(n string) {
		state[n] = onStack
		stack = append(stack, n)
		for _, d := range deps[n] {
			switch state[d] {
			case onStack:
				i := slices.Index(stack, d)
				out = append(out, "cyclic module dependencies: "+strings.Join(append(slices.Clone(stack[i:]), d), " -> "))
			case unseen:
				if _, ok := deps[d]; ok {
					visit(d)
				}
			}
		}
		stack = stack[:len(stack)-1]
		state[n] = done
	}
	for _, mod := range m.Modules {
		if state[mod.Name] == unseen {
			visit(mod.Name)
		}
	}
	return out
}

// sourceRoots lists dir/src/<set>/{kotlin,java} that exist.
func sourceRoots(dir string) []string {
	sets, err := os.ReadDir(filepath.Join(dir, "src"))
	if err != nil {
		return []string{}
	}
	out := []string{}
	for _, set := range sets {
		if !set.IsDir() {
			continue
		}
		for _, lang := range []string{"kotlin", "java"} {
			if p := filepath.Join(dir, "src", set.Name(), lang); isDir(p) {
				out = append(out, p)
			}
		}
	}
	return out
}

func within(path, dir string) bool {
	return path == dir || strings.HasPrefix(path, dir+string(filepath.Separator))
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// readBuildFile reads a build file, refusing huge ones.
func readBuildFile(p string) (string, bool) {
	st, err := os.Stat(p)
	if err != nil || st.Size() > maxBuildFile {
		return "", false
	}
	b, err := os.ReadFile(p)
	return string(b), err == nil
}
