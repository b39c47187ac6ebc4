package libraries

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// discoverJVMRustRuby adds the libraries of Maven/Gradle, Cargo and
// Bundler projects (jvm.go, cargo.go, gems.go).
func (f *Found) discoverJVMRustRuby(ctx context.Context, root string, opts Options) {
	var c Caches
	if opts.Caches != nil {
		c = *opts.Caches
	}
	if jvmProject(root) {
		f.discoverJVM(ctx, root, c)
	}
	if _, err := os.Stat(filepath.Join(root, "Cargo.toml")); err == nil {
		f.discoverCargo(root, c)
	}
	if _, err := os.Stat(filepath.Join(root, "Gemfile")); err == nil {
		f.discoverGems(ctx, root, c)
	}
}

// otherInclude reports whether a JVM, Rust or Ruby library indexes a file
// (relative parts given): a sources jar's Java and Kotlin files (it holds
// no tests: a package named test or spec is the library's own), a crate's
// Rust files but its tests, benchmarks and examples at the top, a gem's
// lib/, where require finds its files.
func (l Library) otherInclude(parts []string) bool {
	if l.linked {
		return false // the workspace indexes these files
	}
	name := parts[len(parts)-1]
	for _, p := range parts[:len(parts)-1] {
		if strings.HasPrefix(p, ".") {
			return false
		}
	}
	switch l.Lang {
	case "jvm":
		return jvmSource(strings.Join(parts, "/"))
	case "rust":
		switch parts[0] {
		case "tests", "benches", "examples", "target":
			return false
		}
		return strings.HasSuffix(name, ".rs")
	case "ruby":
		return len(parts) > 1 && parts[0] == "lib" && strings.HasSuffix(name, ".rb")
	}
	return false
}
