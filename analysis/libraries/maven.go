package libraries

import (
	"encoding/xml"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// A pom.xml's dependencies as Maven sees them: its own and its modules',
// with what each inherits from its <parent> (found at relativePath, else
// in the local Maven repository or the Gradle cache): properties,
// dependencyManagement and dependencies; and the dependencyManagement of
// the BOMs it imports (<type>pom</type><scope>import</scope>). A parent
// or BOM that is missing, or a chain of them that comes back to itself, is
// skipped with its reason, and the rest is still read.

// PomLoop is the reason a parent or BOM is skipped when the chain of
// parents and imports through it comes back to a pom already being read.
const PomLoop = "pomLoop"

// pom is the part of a pom.xml discovery reads.
type pom struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Parent     struct {
		GroupID      string  `xml:"groupId"`
		ArtifactID   string  `xml:"artifactId"`
		Version      string  `xml:"version"`
		RelativePath *string `xml:"relativePath"`
	} `xml:"parent"`
	Properties struct {
		Entries []struct {
			XMLName xml.Name
			Value   string `xml:",chardata"`
		} `xml:",any"`
	} `xml:"properties"`
	Dependencies []pomDependency `xml:"dependencies>dependency"`
	Managed      []pomDependency `xml:"dependencyManagement>dependencies>dependency"`
	Modules      []string        `xml:"modules>module"`
}

type pomDependency struct {
	GroupID    string `xml:"groupId"`
	ArtifactID string `xml:"artifactId"`
	Version    string `xml:"version"`
	Scope      string `xml:"scope"`
	Type       string `xml:"type"`
}

const (
	maxModuleDepth = 3  // how deep <modules> are followed
	maxPomChain    = 12 // how many parents and BOMs one pom reaches through
)

// effectivePom is what a pom passes on to the poms inheriting from it.
type effectivePom struct {
	props, managed map[string]string
	deps           []artifact
}

// pomReader reads a project's poms, each parent and BOM once.
type pomReader struct {
	root, repo, gradle string
	own                map[string]bool // group:artifact of the project's own poms
	skipped            []Skip
	skippedSeen        map[string]bool
	read               map[string]*effectivePom // by file, parents and BOMs
}

func newPomReader(root, repo, gradle string) *pomReader {
	return &pomReader{root: root, repo: repo, gradle: gradle, own: map[string]bool{},
		skippedSeen: map[string]bool{}, read: map[string]*effectivePom{}}
}

func (pr *pomReader) skip(s Skip) {
	if key := s.Library + "\x00" + s.Reason; !pr.skippedSeen[key] {
		pr.skippedSeen[key] = true
		pr.skipped = append(pr.skipped, s)
	}
}

// dependencies lists the dependencies of the project's pom.xml and of the
// modules it aggregates, each once.
func (pr *pomReader) dependencies(file string) ([]artifact, error) {
	out, err := pr.module(file, nil, 0)
	slices.SortFunc(out, func(a, b artifact) int { return strings.Compare(a.String(), b.String()) })
	return slices.Compact(out), err
}

// module reads one of the project's poms and the modules it aggregates; a
// module without a parent of its own inherits from its aggregator.
func (pr *pomReader) module(file string, aggregator *effectivePom, depth int) ([]artifact, error) {
	p, err := readPom(file)
	if err != nil {
		return nil, err
	}
	eff := pr.effective(file, p, aggregator, nil)
	pr.own[eff.props["project.groupId"]+":"+strings.TrimSpace(p.ArtifactID)] = true
	out := eff.deps
	if depth >= maxModuleDepth {
		return out, nil
	}
	for _, m := range p.Modules {
		sub := filepath.Join(filepath.Dir(file), filepath.FromSlash(strings.TrimSpace(m)), "pom.xml")
		if !within(pr.root, sub) {
			continue
		}
		if d, err := pr.module(sub, eff, depth+1); err == nil {
			out = append(out, d...)
		}
	}
	return out, nil
}

func readPom(file string) (*pom, error) {
	data, err := readSmall(file)
	if err != nil {
		return nil, err
	}
	var p pom
	if err := xml.Unmarshal(data, &p); err != nil {
		return nil, err
	}
	return &p, nil
}

// effective works out what p, read from file, declares with what it
// inherits: from its parent when found, else from fallback. chain is the
// parents and BOMs being read, to stop at a loop.
func (pr *pomReader) effective(file string, p *pom, fallback *effectivePom, chain []string) *effectivePom {
	chain = append(chain, file)
	inherited := fallback
	if parent, ok := pr.parent(file, p, chain); ok {
		inherited = parent
	}
	eff := &effectivePom{props: map[string]string{}, managed: map[string]string{}}
	if inherited != nil {
		maps.Copy(eff.props, inherited.props)
		maps.Copy(eff.managed, inherited.managed)
		eff.deps = slices.Clone(inherited.deps)
	}
	for _, e := range p.Properties.Entries {
		eff.props[e.XMLName.Local] = strings.TrimSpace(e.Value)
	}
	version := strings.TrimSpace(nonBlank(p.Version, p.Parent.Version))
	group := strings.TrimSpace(nonBlank(p.GroupID, p.Parent.GroupID))
	eff.props["project.version"], eff.props["version"], eff.props["project.groupId"] = version, version, group
	eff.props["project.parent.version"] = strings.TrimSpace(p.Parent.Version)
	// The pom's own entries win over the BOMs it imports, which win over
	// what its parent manages; of two BOMs, the first.
	imported := map[string]bool{}
	for _, d := range p.Managed {
		if strings.TrimSpace(d.Scope) != "import" {
			continue
		}
		bom := artifact{expand(d.GroupID, eff.props), expand(d.ArtifactID, eff.props), expand(d.Version, eff.props)}
		b, ok := pr.external(bom, "", chain)
		if !ok {
			continue
		}
		for k, v := range b.managed {
			if !imported[k] {
				imported[k] = true
				eff.managed[k] = v
			}
		}
	}
	for _, d := range p.Managed {
		if strings.TrimSpace(d.Scope) != "import" {
			eff.managed[expand(d.GroupID, eff.props)+":"+expand(d.ArtifactID, eff.props)] = expand(d.Version, eff.props)
		}
	}
	for _, d := range p.Dependencies {
		a := artifact{expand(d.GroupID, eff.props), expand(d.ArtifactID, eff.props), expand(d.Version, eff.props)}
		if a.Group != "" && a.Name != "" && d.Scope != "import" {
			eff.deps = append(eff.deps, a)
		}
	}
	for i, a := range eff.deps {
		if a.Version == "" {
			a.Version = eff.managed[a.Group+":"+a.Name]
		}
		if strings.Contains(a.Version, "${") {
			a.Version = "" // an unknown property: the newest cached version
		}
		eff.deps[i] = a
	}
	return eff
}

// parent is the effective pom of p's <parent>: the pom at relativePath
// (../pom.xml unless it says otherwise) when it is that artifact, else the
// one in the caches. ok is false when p names no parent or it is skipped.
func (pr *pomReader) parent(file string, p *pom, chain []string) (*effectivePom, bool) {
	par := p.Parent
	if strings.TrimSpace(par.ArtifactID) == "" {
		return nil, false
	}
	rel := "../pom.xml"
	if par.RelativePath != nil {
		rel = strings.TrimSpace(*par.RelativePath)
	}
	local := ""
	if rel != "" {
		local = filepath.Join(filepath.Dir(file), filepath.FromSlash(rel))
		if !strings.HasSuffix(local, ".xml") {
			local = filepath.Join(local, "pom.xml")
		}
		if q, err := readPom(local); err != nil || strings.TrimSpace(q.ArtifactID) != strings.TrimSpace(par.ArtifactID) {
			local = ""
		}
	}
	props := map[string]string{}
	for _, e := range p.Properties.Entries {
		props[e.XMLName.Local] = strings.TrimSpace(e.Value) // ${revision} versions
	}
	return pr.external(artifact{expand(par.GroupID, props), expand(par.ArtifactID, props), expand(par.Version, props)}, local, chain)
}

// external is the effective pom of a parent or BOM: the file given, else
// the artifact's .pom in the caches.
func (pr *pomReader) external(a artifact, file string, chain []string) (*effectivePom, bool) {
	if file == "" {
		if !safeCoordinate(a) || a.Version == "" || strings.Contains(a.Version, "${") {
			pr.skip(Skip{Library: a.String(), Reason: BadBuildFile, Detail: "a parent or BOM without a usable version"})
			return nil, false
		}
		file = pomFileAt(pr.repo, pr.gradle, a)
		if file == "" {
			pr.skip(Skip{Library: a.String(), Reason: NotDownloaded, Detail: "the parent or BOM " + a.Group + ":" + a.Name + " is in neither the Maven repository nor the Gradle cache"})
			return nil, false
		}
	}
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	if slices.Contains(chain, file) || len(chain) > maxPomChain {
		pr.skip(Skip{Library: a.String(), Reason: PomLoop, Detail: "the chain of parents and BOMs through " + file + " comes back to itself or is too long"})
		return nil, false
	}
	if eff, ok := pr.read[file]; ok {
		return eff, eff != nil
	}
	p, err := readPom(file)
	if err != nil {
		pr.skip(Skip{Library: a.String(), Reason: BadBuildFile, Detail: err.Error()})
		pr.read[file] = nil
		return nil, false
	}
	eff := pr.effective(file, p, nil, chain)
	pr.read[file] = eff
	return eff, true
}

// pomFileAt is the cached .pom of a's version, or "".
func pomFileAt(repo, gradle string, a artifact) string {
	file := a.Name + "-" + a.Version + ".pom"
	if repo != "" {
		if p := filepath.Join(repo, filepath.FromSlash(strings.ReplaceAll(a.Group, ".", "/")), a.Name, a.Version, file); fileExists(p) {
			return p
		}
	}
	if gradle != "" {
		found, _ := filepath.Glob(filepath.Join(gradle, a.Group, a.Name, a.Version, "*", file))
		for _, p := range found {
			if fileExists(p) {
				return p
			}
		}
	}
	return ""
}

var propertyRef = regexp.MustCompile(`\$\{([^}]+)\}`)

// expand substitutes ${name} from props, a few rounds deep.
func expand(s string, props map[string]string) string {
	s = strings.TrimSpace(s)
	for range 5 {
		if !strings.Contains(s, "${") {
			break
		}
		s = propertyRef.ReplaceAllStringFunc(s, func(m string) string {
			if v, ok := props[m[2:len(m)-1]]; ok {
				return v
			}
			return m
		})
	}
	return s
}
