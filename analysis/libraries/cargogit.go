package libraries

import (
	"bufio"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// Rust crates from git: Cargo.lock pins them as
// `source = "git+<url>[?branch=…]#<commit>"`, and cargo checks the commit
// out under $CARGO_HOME/git/checkouts/<repository>-<url hash>/<short
// commit>/, writing .cargo-ok when the checkout is whole. The crate is the
// checkout's root package or one of its workspace's members.

// maxCrateSearch bounds the folders searched for a git crate's manifest.
const maxCrateSearch = 2000

// gitCrate finds a git crate's folder in cargo's checkouts.
func gitCrate(home string, cr lockedCrate) (Library, *Skip) {
	id := cr.Name + "@" + cr.Version
	url, rev, ok := strings.Cut(strings.TrimPrefix(cr.Source, "git+"), "#")
	repo := gitRepoName(url)
	if !ok || len(rev) < 7 || strings.ContainsAny(rev, `/\.`) || repo == "" || strings.ContainsAny(cr.Name, `/\`) {
		return Library{}, &Skip{Library: id, Reason: BadBuildFile, Detail: "not a git source with a commit: " + cr.Source}
	}
	var checkout string
	repos, _ := filepath.Glob(filepath.Join(home, "git", "checkouts", repo+"-*"))
	for _, r := range repos {
		revs, _ := os.ReadDir(r)
		for _, e := range revs {
			if len(e.Name()) >= 7 && strings.HasPrefix(rev, e.Name()) {
				checkout = filepath.Join(r, e.Name())
			}
		}
	}
	if checkout == "" {
		return Library{}, &Skip{Library: id, Reason: NotDownloaded, Detail: "commit " + rev[:7] + " of " + url + " is not checked out (cargo fetch does it)"}
	}
	real, err := filepath.EvalSymlinks(checkout)
	if err != nil {
		return Library{}, &Skip{Library: id, Reason: LinkLoop, Detail: err.Error()}
	}
	if !fileExists(filepath.Join(real, ".cargo-ok")) {
		return Library{}, &Skip{Library: id, Reason: Incomplete, Detail: checkout + " is a checkout cargo did not finish"}
	}
	dir := crateIn(real, cr.Name)
	if dir == "" {
		return Library{}, &Skip{Library: id, Reason: Incomplete, Detail: checkout + " has no package " + cr.Name}
	}
	// The commit is part of the version: two checkouts of one version
	// are different sources.
	return withCargoLib(Library{Lang: "rust", Module: cr.Name, Version: cr.Version + "+git." + rev[:7], Dir: dir}), nil
}

// gitRepoName is the last segment of a git URL without .git and query,
// the name cargo gives the repository's checkouts folder.
func gitRepoName(url string) string {
	url, _, _ = strings.Cut(url, "?")
	url = strings.TrimSuffix(strings.TrimRight(url, "/"), ".git")
	name := url[strings.LastIndexAny(url, "/:")+1:]
	if name == "" || name == ".." || name == "." {
		return ""
	}
	return name
}

// crateIn finds the folder under dir whose Cargo.toml declares the package
// name, dir itself first, then breadth first, skipping target and hidden
// folders; "" when there is none.
func crateIn(dir, name string) string {
	queue, seen := []string{dir}, 0
	for len(queue) > 0 && seen < maxCrateSearch {
		d := queue[0]
		queue = queue[1:]
		seen++
		if packageName(filepath.Join(d, "Cargo.toml")) == name {
			return d
		}
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.IsDir() && !strings.HasPrefix(e.Name(), ".") && e.Name() != "target" {
				queue = append(queue, filepath.Join(d, e.Name()))
			}
		}
	}
	return ""
}

var manifestKey = regexp.MustCompile(`^([A-Za-z0-9_\-]+)\s*=\s*"([^"]*)"`)

// packageName is the name a Cargo.toml's [package] declares, or "".
func packageName(manifest string) string {
	data, err := readSmall(manifest)
	if err != nil {
		return ""
	}
	section := ""
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			section = strings.Trim(line, "[] ")
			continue
		}
		if m := manifestKey.FindStringSubmatch(line); m != nil && section == "package" && m[1] == "name" {
			return m[2]
		}
	}
	return ""
}

// dependencySection reports whether a Cargo.toml section lists
// dependencies: [dependencies], [dev-dependencies],
// [target.'cfg(unix)'.dependencies], [workspace.dependencies].
func dependencySection(section string) bool {
	return slices.ContainsFunc([]string{"dependencies", "dev-dependencies", "build-dependencies"}, func(s string) bool {
		return section == s || strings.HasSuffix(section, "."+s)
	})
}
