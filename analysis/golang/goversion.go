package golang

import (
	"bytes"
	"go/build/constraint"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/mod/modfile"
)

// The Go version a file is written for, as go/types decides it: its
// module's go.mod `go` line (1.16 when there is none, as the go command
// assumes), unless a //go:build line names a version, which then rules,
// raised to at least 1.21 (the first release to honour it).

// goModDefaultMinor is the version the go command gives a go.mod without a
// go line.
const goModDefaultMinor = 16

// FileGoMinor is the minor Go version the file at path, whose text is
// text, is compiled at; ok is false when it is not in a module.
func FileGoMinor(path string, text []byte) (minor int, ok bool) {
	if v, tagged := buildConstraintMinor(text); tagged {
		return max(v, 21), true
	}
	return ModuleGoMinor(filepath.Dir(path))
}

// buildConstraintMinor reads the //go:build line of a file's header and
// the least Go version it requires, if it names one.
func buildConstraintMinor(text []byte) (int, bool) {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		s := strings.TrimSpace(string(line))
		switch {
		case s == "", strings.HasPrefix(s, "//") && !constraint.IsGoBuild(s):
			continue
		case constraint.IsGoBuild(s):
			expr, err := constraint.Parse(s)
			if err != nil {
				return 0, false
			}
			return parseGoMinor(constraint.GoVersion(expr))
		default:
			return 0, false // the header ends (package clause, a block comment)
		}
	}
	return 0, false
}

// parseGoMinor reads "go1.21", "1.21.3" or "1.22rc1" as 21, 21, 22.
func parseGoMinor(v string) (int, bool) {
	v = strings.TrimPrefix(v, "go")
	rest, ok := strings.CutPrefix(v, "1.")
	if !ok {
		return 0, v == "1" // go1 is go1.0
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	n, err := strconv.Atoi(rest[:end])
	return n, err == nil
}

// goModEntry is what one folder's enclosing go.mod says, and when it was
// read.
type goModEntry struct {
	gomod   string // "" when no go.mod encloses the folder
	modTime time.Time
	size    int64
	minor   int
	ok      bool // go.mod could be read
}

var (
	goModsMu sync.Mutex
	goMods   = map[string]goModEntry{} // by folder
)

// ModuleGoMinor is the minor Go version of the module enclosing dir, from
// its go.mod, read once per module and again only when go.mod changes.
func ModuleGoMinor(dir string) (int, bool) {
	goModsMu.Lock()
	e, known := goMods[dir]
	goModsMu.Unlock()
	if known && e.gomod == "" {
		return 0, false // no module: a new go.mod above is not looked for again
	}
	if known {
		if fi, err := os.Stat(e.gomod); err == nil && fi.ModTime().Equal(e.modTime) && fi.Size() == e.size {
			return e.minor, e.ok
		}
	}
	e = readEnclosingGoMod(dir)
	goModsMu.Lock()
	goMods[dir] = e
	goModsMu.Unlock()
	return e.minor, e.ok
}

func readEnclosingGoMod(dir string) goModEntry {
	for d := dir; ; {
		p := filepath.Join(d, "go.mod")
		if fi, err := os.Stat(p); err == nil && !fi.IsDir() {
			e := goModEntry{gomod: p, modTime: fi.ModTime(), size: fi.Size()}
			b, err := os.ReadFile(p)
			if err != nil {
				return e // unreadable: no version known
			}
			f, err := modfile.ParseLax(p, b, nil)
			switch {
			case err != nil:
			case f.Go == nil:
				e.minor, e.ok = goModDefaultMinor, true
			default:
				e.minor, e.ok = parseGoMinor(f.Go.Version)
			}
			return e
		}
		parent := filepath.Dir(d)
		if parent == d {
			return goModEntry{}
		}
		d = parent
	}
}
