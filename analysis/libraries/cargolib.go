package libraries

import (
	"bufio"
	"path/filepath"
	"strings"
)

// A crate's [lib] table may move its root file (`path = "lib.rs"`, not
// src/lib.rs) and rename the crate for Rust code (`name = "foo_core"`).
// Modules declared in the root file are files beside it.

// withCargoLib sets a Rust library's crate root and Rust name from its
// Cargo.toml's [lib] table. A path that leaves the crate's folder is
// ignored: only the crate's own files are read.
func withCargoLib(l Library) Library {
	data, err := readSmall(filepath.Join(l.Dir, "Cargo.toml"))
	if err != nil {
		return l
	}
	path, name := cargoLibTable(string(data))
	if path != "" {
		clean := filepath.Clean(filepath.FromSlash(path))
		if !filepath.IsAbs(clean) && clean != ".." && !strings.HasPrefix(clean, ".."+string(filepath.Separator)) && strings.HasSuffix(clean, ".rs") {
			l.crateRoot = clean
		}
	}
	if name != "" && !strings.ContainsAny(name, `/\. `) {
		l.crateName = CrateName(name)
	}
	return l
}

// cargoLibTable reads the path and name keys of a manifest's [lib] table.
func cargoLibTable(manifest string) (path, name string) {
	in := false
	sc := bufio.NewScanner(strings.NewReader(manifest))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = line == "[lib]"
			continue
		}
		key, value, ok := strings.Cut(line, "=")
		if !in || !ok {
			continue
		}
		value = strings.TrimSpace(value)
		if i := strings.Index(value, "#"); i >= 0 && !strings.HasPrefix(value, `"`) {
			value = strings.TrimSpace(value[:i])
		}
		if len(value) < 2 || value[0] != '"' {
			continue
		}
		value = value[1:]
		if end := strings.IndexByte(value, '"'); end >= 0 {
			value = value[:end]
		}
		switch strings.TrimSpace(key) {
		case "path":
			path = value
		case "name":
			name = value
		}
	}
	return path, name
}

// RustName is the name Rust code uses for the crate: its [lib] name, else
// its package name with dashes as underscores.
func (l Library) RustName() string {
	if l.crateName != "" {
		return l.crateName
	}
	return CrateName(l.Module)
}

// crateRootFile is the crate's root file: src/lib.rs unless [lib] says.
func (l Library) crateRootFile() string {
	if l.crateRoot != "" {
		return filepath.Join(l.Dir, l.crateRoot)
	}
	return filepath.Join(l.Dir, "src", "lib.rs")
}
