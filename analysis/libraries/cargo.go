package libraries

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// Rust libraries: the registry crates Cargo.lock pins, each as cargo
// extracted it under $CARGO_HOME/registry/src/<index>/<name>-<version>.
// Crates from git or local paths are left out: a path crate is the
// user's source, and a git checkout is not a published version.

// cargoCrates lists the registry crates of a Cargo.lock as name, version.
func cargoCrates(lock string) ([][2]string, error) {
	data, err := readSmall(lock)
	if err != nil {
		return nil, err
	}
	var out [][2]string
	var name, version, source string
	flush := func() {
		if name != "" && version != "" && (strings.HasPrefix(source, "registry+") || strings.HasPrefix(source, "sparse+")) {
			out = append(out, [2]string{name, version})
		}
		name, version, source = "", "", ""
	}
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			flush()
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !ok {
			continue
		}
		value = strings.Trim(strings.TrimSpace(value), `"`)
		switch strings.TrimSpace(key) {
		case "name":
			name = value
		case "version":
			version = value
		case "source":
			source = value
		}
	}
	flush()
	return out, nil
}

func (f *Found) discoverCargo(root string, c Caches) {
	lock := filepath.Join(root, "Cargo.lock")
	crates, err := cargoCrates(lock)
	if err != nil {
		if !os.IsNotExist(err) {
			f.Skipped = append(f.Skipped, Skip{Library: lock, Reason: BadBuildFile, Detail: err.Error()})
		}
		return
	}
	home := c.CargoHome
	if home == "" {
		home = os.Getenv("CARGO_HOME")
	}
	if home == "" {
		h, err := os.UserHomeDir()
		if err != nil {
			return
		}
		home = filepath.Join(h, ".cargo")
	}
	indexes, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*"))
	for _, cr := range crates {
		f.add(registryCrate(indexes, cr[0], cr[1]))
	}
}

// registryCrate finds a crate version's extracted folder in one of the
// registry's source folders.
func registryCrate(indexes []string, name, version string) (Library, *Skip) {
	id := name + "@" + version
	if strings.ContainsAny(name+version, `/\`) || strings.Contains(name+version, "..") {
		return Library{}, &Skip{Library: id, Reason: BadBuildFile, Detail: "not a crate name and version"}
	}
	for _, idx := range indexes {
		dir := filepath.Join(idx, name+"-"+version)
		if _, err := os.Lstat(dir); err != nil {
			continue
		}
		real, err := filepath.EvalSymlinks(dir)
		if err != nil {
			return Library{}, &Skip{Library: id, Reason: LinkLoop, Detail: err.Error()}
		}
		if !fileExists(filepath.Join(real, "Cargo.toml")) {
			return Library{}, &Skip{Library: id, Reason: Incomplete, Detail: dir + " has no Cargo.toml"}
		}
		return Library{Lang: "rust", Module: name, Version: version, Dir: real}, nil
	}
	return Library{}, &Skip{Library: id, Reason: NotDownloaded, Detail: "not in the cargo registry (cargo fetch puts it there)"}
}

// CrateSourceFiles lists the files a Rust path into this crate names:
// src/lib.rs for the crate itself, src/a/b.rs or src/a/b/mod.rs for the
// module crate::a::b.
func (l Library) CrateSourceFiles(modules []string) []string {
	if l.Lang != "rust" {
		return nil
	}
	if len(modules) == 0 {
		return []string{filepath.Join(l.Dir, "src", "lib.rs")}
	}
	base := filepath.Join(append([]string{l.Dir, "src"}, modules...)...)
	return []string{base + ".rs", filepath.Join(base, "mod.rs")}
}

// CrateName is the name Rust code uses for a crate: dashes become
// underscores.
func CrateName(crate string) string { return strings.ReplaceAll(crate, "-", "_") }
