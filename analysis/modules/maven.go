package modules

import (
	"encoding/xml"
	"fmt"
	"path/filepath"
	"strings"
)

// Maven reactors: a pom.xml's <modules> name folders with poms of their
// own; a <dependency> on another module's artifactId is a module dependency.

type pom struct {
	ArtifactID   string   `xml:"artifactId"`
	Modules      []string `xml:"modules>module"`
	Dependencies []struct {
		ArtifactID string `xml:"artifactId"`
		Scope      string `xml:"scope"`
	} `xml:"dependencies>dependency"`
}

func loadMaven(root string) Model {
	var m Model
	type found struct {
		dir string
		pom pom
	}
	var poms []found
	seen := map[string]bool{}
	queue := []string{root}
	for len(queue) > 0 && len(poms) < maxModules {
		dir := queue[0]
		queue = queue[1:]
		if seen[dir] {
			continue
		}
		seen[dir] = true
		file := filepath.Join(dir, "pom.xml")
		text, ok := readBuildFile(file)
		if !ok {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: a module folder without a readable pom.xml", dir))
			continue
		}
		var p pom
		if err := xml.Unmarshal([]byte(text), &p); err != nil {
			m.Problems = append(m.Problems, fmt.Sprintf("%s: %v", file, err))
			continue
		}
		poms = append(poms, found{dir, p})
		for _, sub := range p.Modules {
			sub = strings.TrimSpace(sub)
			if sub == "" || filepath.IsAbs(sub) {
				continue
			}
			subDir := filepath.Join(dir, filepath.FromSlash(strings.TrimSuffix(sub, "/pom.xml")))
			if !isDir(subDir) {
				m.Problems = append(m.Problems, fmt.Sprintf("%s: module %s is listed but its folder is missing", file, sub))
				continue
			}
			queue = append(queue, subDir)
		}
	}
	names := map[string]bool{}
	for _, f := range poms {
		names[strings.TrimSpace(f.pom.ArtifactID)] = true
	}
	for _, f := range poms {
		name := strings.TrimSpace(f.pom.ArtifactID)
		if name == "" {
			name = filepath.Base(f.dir)
		}
		if len(f.pom.Modules) > 0 && len(sourceRoots(f.dir)) == 0 {
			continue // an aggregator pom
		}
		mod := Module{Name: name, Dir: f.dir, Dependencies: []string{}}
		for _, d := range f.pom.Dependencies {
			if dep := strings.TrimSpace(d.ArtifactID); names[dep] && dep != name {
				mod.addDependency(dep, strings.TrimSpace(d.Scope) == "test")
			}
		}
		m.Modules = append(m.Modules, mod)
	}
	return m
}
