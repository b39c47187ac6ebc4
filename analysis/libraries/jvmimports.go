package libraries

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
)

// The packages a JVM project imports from the JDK, read from the import
// lines at the top of its Java and Kotlin files; they decide which JDK
// modules beyond java.base are indexed (jdk.go).

const (
	maxImportScanFiles = 20_000   // files whose imports are read
	importHeader       = 32 << 10 // bytes read from each: the imports come first
)

var jvmImport = regexp.MustCompile(`(?m)^\s*import\s+(?:static\s+)?((?:java|javax|jdk|com\.sun|org\.w3c|org\.xml|netscape)\.[\w.]+)`)

// jvmImports lists the JDK-looking packages and types the project's Java
// and Kotlin files import, each once.
func jvmImports(root string) []string {
	seen := map[string]bool{}
	files := 0
	_ = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if d.IsDir() {
			switch name := d.Name(); {
			case p != root && strings.HasPrefix(name, "."), name == "build", name == "target", name == "node_modules", name == "out":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".java") && !strings.HasSuffix(p, ".kt") {
			return nil
		}
		if files++; files > maxImportScanFiles {
			return filepath.SkipAll
		}
		for _, imp := range importsOf(p) {
			seen[strings.TrimSuffix(imp, ".")] = true
		}
		return nil
	})
	out := make([]string, 0, len(seen))
	for imp := range seen {
		out = append(out, imp)
	}
	slices.Sort(out)
	return out
}

func importsOf(path string) []string {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	head, _ := io.ReadAll(io.LimitReader(f, importHeader))
	var out []string
	for _, m := range jvmImport.FindAllSubmatch(head, -1) {
		out = append(out, string(m[1]))
	}
	return out
}
