package libraries

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// Rust libraries: the registry crates Cargo.lock pins, each as cargo
// extracted it under $CARGO_HOME/registry/src/<index>/<name>-<version>;
// the git crates it pins, as cargo checked them out (cargogit.go); and the
// path dependencies the manifests name (cargopath.go).

// lockedCrate is a [[package]] of Cargo.lock.
type lockedCrate struct{ Name, Version, Source string }

// cargoCrates lists the registry and git crates of a Cargo.lock.
func cargoCrates(lock string) ([]lockedCrate, error) {
	data, err := readSmall(lock)
	if err != nil {
		return nil, err
	}
	var out []lockedCrate
	var name, version, source string
	flush := func() {
		if name != "" && version != "" && source != "" {
			out = append(out, lockedCrate{name, version, source})
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
	if err != nil && !os.IsNotExist(err) {
		f.Skipped = append(f.Skipped, Skip{Library: lock, Reason: BadBuildFile, Detail: err.Error()})
	}
	home := cargoHome(c)
	indexes, _ := filepath.Glob(filepath.Join(home, "registry", "src", "*"))
	for _, cr := range crates {
		switch {
		case strings.HasPrefix(cr.Source, "registry+"), strings.HasPrefix(cr.Source, "sparse+"):
			f.add(registryCrate(indexes, cr.Name, cr.Version))
		case strings.HasPrefix(cr.Source, "git+"):
			f.add(gitCrate(home, cr))
		}
	}
	f.discoverCargoPaths(root)
}

// cargoHome is $CARGO_HOME, else ~/.cargo; "" when neither is known.
func cargoHome(c Caches) string {
	if c.CargoHome != "" {
		return c.CargoHome
	}
	if h := os.Getenv("CARGO_HOME"); h != "" {
		return h
	}
	h, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	return filepath.Join(h, ".cargo")
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
		return withCargoLib(Library{Lang: "rust", Module: name, Version: version, Dir: real}), nil
	}
	return Library{}, &Skip{Library: id, Reason: NotDownloaded, Detail: "not in the cargo registry (cargo fetch puts it there)"}
}

// CrateSourceFiles lists the files a Rust path into this crate names:
// the crate root (src/lib.rs, or [lib] path) for the crate itself, a/b.rs
// or a/b/mod.rs beside the root for the module crate::a::b.
func (l Library) CrateSourceFiles(modules []string) []string {
	if l.Lang != "rust" {
		return nil
	}
	root := l.crateRootFile()
	if len(modules) == 0 {
		return []string{root}
	}
	base := filepath.Join(append([]string{filepath.Dir(root)}, modules...)...)
	return []string{base + ".rs", filepath.Join(base, "mod.rs")}
}

// CrateModuleOf is the module path of a file of the crate's root folder,
// the inverse of CrateSourceFiles; ok is false for a file outside it.
func (l Library) CrateModuleOf(path string) (modules []string, ok bool) {
	root := l.crateRootFile()
	if path == root {
		return nil, true
	}
	rel, err := filepath.Rel(filepath.Dir(root), path)
	if err != nil || !strings.HasSuffix(rel, ".rs") || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return nil, false
	}
	parts := strings.Split(filepath.ToSlash(strings.TrimSuffix(rel, ".rs")), "/")
	switch last := parts[len(parts)-1]; {
	case last == "mod":
		parts = parts[:len(parts)-1]
	case len(parts) == 1 && (last == "lib" || last == "main") && l.crateRoot == "":
		parts = nil
	}
	return parts, true
}

// CrateName is the name Rust code uses for a crate: dashes become
// underscores.
func CrateName(crate string) string { return strings.ReplaceAll(crate, "-", "_") }
