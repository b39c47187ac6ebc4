package libraries

import (
	"bufio"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Rust path dependencies: `name = { path = "../x" }` in the manifests of
// the workspace (its root and its [workspace] members). A path inside the
// workspace is the user's own source, indexed with the workspace: the
// crate is linked in, to map its name to its files, and indexes nothing.
// A path outside it is indexed like a library, read-only.

var (
	inlinePath   = regexp.MustCompile(`^([A-Za-z0-9_\-]+)\s*=\s*\{.*\bpath\s*=\s*"([^"]+)"`)
	depTable     = regexp.MustCompile(`^(?:.*\.)?(?:dev-|build-)?dependencies\.([A-Za-z0-9_\-]+)$`)
	tablePath    = regexp.MustCompile(`^path\s*=\s*"([^"]+)"`)
	membersStart = regexp.MustCompile(`^members\s*=\s*\[`)
)

// maxMembers bounds the workspace members whose manifests are read.
const maxMembers = 500

func (f *Found) discoverCargoPaths(root string) {
	manifests := []string{filepath.Join(root, "Cargo.toml")}
	deps, members := manifestPaths(manifests[0])
	for _, m := range members {
		found, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(m), "Cargo.toml"))
		for _, man := range found {
			if within(root, man) && !slices.Contains(manifests, man) && len(manifests) < maxMembers {
				manifests = append(manifests, man)
				d, _ := manifestPaths(man)
				deps = append(deps, d...)
			}
		}
	}
	seen := map[string]bool{}
	for _, d := range deps {
		name, dir := d[0], filepath.Clean(d[1])
		if seen[name+"\x00"+dir] {
			continue
		}
		seen[name+"\x00"+dir] = true
		f.add(pathCrate(root, name, dir))
	}
}

// pathCrate is the crate of a path dependency.
func pathCrate(root, name, dir string) (Library, *Skip) {
	id := name + "@path"
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		if fileExists(dir) || isLoop(err) {
			return Library{}, &Skip{Library: id, Reason: LinkLoop, Detail: err.Error()}
		}
		return Library{}, &Skip{Library: id, Reason: NotDownloaded, Detail: dir + " does not exist"}
	}
	if !fileExists(filepath.Join(real, "Cargo.toml")) {
		return Library{}, &Skip{Library: id, Reason: Incomplete, Detail: dir + " has no Cargo.toml"}
	}
	// The folder names the version: it shares no index with another copy.
	lib := withCargoLib(Library{Lang: "rust", Module: name, Version: fmt.Sprintf("path.%08x", fnv32(real)), Dir: real})
	if realRoot, err := filepath.EvalSymlinks(root); err == nil && within(realRoot, real) {
		lib.linked = true
	}
	return lib, nil
}

func isLoop(err error) bool { return strings.Contains(err.Error(), "too many links") }

// manifestPaths reads a Cargo.toml's path dependencies as name and folder
// (relative paths made absolute from the manifest's folder), and its
// [workspace] members' patterns.
func manifestPaths(manifest string) (deps [][2]string, members []string) {
	data, err := readSmall(manifest)
	if err != nil {
		return nil, nil
	}
	dir := filepath.Dir(manifest)
	at := func(p string) string {
		if filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(dir, filepath.FromSlash(p))
	}
	section, inMembers := "", false
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case inMembers:
			members = append(members, quotedStrings(line)...)
			inMembers = !strings.Contains(line, "]")
		case strings.HasPrefix(line, "["):
			section = strings.Trim(line, "[] ")
		case section == "workspace" && membersStart.MatchString(line):
			members = append(members, quotedStrings(line)...)
			inMembers = !strings.Contains(line[strings.Index(line, "[")+1:], "]")
		case dependencySection(section):
			if m := inlinePath.FindStringSubmatch(line); m != nil {
				deps = append(deps, [2]string{m[1], at(m[2])})
			}
		default:
			if t := depTable.FindStringSubmatch(section); t != nil {
				if m := tablePath.FindStringSubmatch(line); m != nil {
					deps = append(deps, [2]string{t[1], at(m[1])})
				}
			}
		}
	}
	return deps, members
}

func quotedStrings(s string) []string {
	var out []string
	for _, m := range quoted.FindAllStringSubmatch(s, -1) {
		out = append(out, m[1])
	}
	return out
}
