package golang

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
)

// When each name of the standard library appeared, read from the api
// files every Go toolchain ships (GOROOT/api/go1.txt, go1.N.txt): the
// minor version of the first file that lists it, as gopls's manifest
// (x/tools/internal/stdlib) is generated from the same files.

// StdAPI maps the standard library's exported names to the minor Go
// version that introduced them.
type StdAPI struct {
	// Newest is the newest minor version listed: the toolchain's.
	Newest int
	// since is by import path, then "Name" for a package-level name and
	// "Type.Member" for a field or method.
	since map[string]map[string]uint8
}

// Since reports the minor version that introduced sym of the package at
// importPath: "Name" or "Type.Member"; ok is false when it is not listed.
func (a *StdAPI) Since(importPath, sym string) (minor int, ok bool) {
	m, ok := a.since[importPath][sym]
	return int(m), ok
}

// Reasons the api files give no versions (StdAPIProblems counts them).
const (
	APINoDir      = "noApiDir"      // GOROOT/api is missing or unreadable
	APIGap        = "apiGap"        // a go1.N.txt file between go1.txt and the newest is missing
	APIUnreadable = "apiUnreadable" // an api file cannot be read
)

type stdAPIEntry struct {
	once sync.Once
	api  *StdAPI
	err  error
}

var (
	stdAPIs      sync.Map // GOROOT → *stdAPIEntry
	problemsMu   sync.Mutex
	stdProblems  = map[string]int{}
	badLineCount int
)

// StdAPIOf reads goroot's api files, once per process. A missing or broken
// api folder gives an error (counted by reason in StdAPIProblems): then
// nothing is known to be new, and nothing is filtered.
func StdAPIOf(goroot string) (*StdAPI, error) {
	e, _ := stdAPIs.LoadOrStore(goroot, &stdAPIEntry{})
	entry := e.(*stdAPIEntry)
	entry.once.Do(func() {
		entry.api, entry.err = readStdAPI(filepath.Join(goroot, "api"))
		if entry.err != nil {
			var p apiProblem
			reason := APIUnreadable
			if errors.As(entry.err, &p) {
				reason = p.reason
			}
			problemsMu.Lock()
			stdProblems[reason]++
			problemsMu.Unlock()
		}
	})
	return entry.api, entry.err
}

// StdAPIProblems counts, by reason, the toolchains whose api files could
// not be used, and the lines of the api files that could not be read.
func StdAPIProblems() map[string]int {
	problemsMu.Lock()
	defer problemsMu.Unlock()
	out := maps.Clone(stdProblems)
	if badLineCount > 0 {
		out["apiBadLines"] = badLineCount
	}
	return out
}

type apiProblem struct{ reason, detail string }

func (p apiProblem) Error() string { return p.reason + ": " + p.detail }

func readStdAPI(dir string) (*StdAPI, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, apiProblem{APINoDir, err.Error()}
	}
	minors := map[int]string{}
	for _, e := range entries {
		if m, ok := apiFileMinor(e.Name()); ok && !e.IsDir() {
			minors[m] = e.Name()
		}
	}
	if len(minors) == 0 {
		return nil, apiProblem{APINoDir, dir + " lists no go1*.txt file"}
	}
	newest := 0
	for m := range minors {
		newest = max(newest, m)
	}
	// A missing file would date its names to a later version and hide
	// them from files that may use them.
	for m := 0; m <= newest; m++ {
		if minors[m] == "" {
			return nil, apiProblem{APIGap, fmt.Sprintf("%s has no %s", dir, apiFileName(m))}
		}
	}
	api := &StdAPI{Newest: newest, since: map[string]map[string]uint8{}}
	bad := 0
	// Oldest first (every minor up to newest is there): a name listed
	// again later (a constant whose value changed, a deprecation) keeps
	// the version it first appeared in.
	for m := 0; m <= newest; m++ {
		b, err := os.ReadFile(filepath.Join(dir, minors[m]))
		if err != nil {
			return nil, apiProblem{APIUnreadable, err.Error()}
		}
		bad += api.parse(string(b), uint8(m))
	}
	if bad > 0 {
		problemsMu.Lock()
		badLineCount += bad
		problemsMu.Unlock()
	}
	return api, nil
}

// apiFileMinor is the minor version of an api file's name: go1.txt is 0,
// go1.21.txt 21.
func apiFileMinor(name string) (int, bool) {
	if name == "go1.txt" {
		return 0, true
	}
	v, ok := strings.CutPrefix(name, "go1.")
	if !ok {
		return 0, false
	}
	v, ok = strings.CutSuffix(v, ".txt")
	n, err := strconv.Atoi(v)
	if !ok || err != nil || n <= 0 || n > 255 {
		return 0, false
	}
	return n, true
}

func apiFileName(minor int) string {
	if minor == 0 {
		return "go1.txt"
	}
	return fmt.Sprintf("go1.%d.txt", minor)
}

// parse adds the names of one api file, listed since minor; it returns the
// number of lines it could not read. The lines are read in place: only
// the names kept are copied out of the file's text.
func (a *StdAPI) parse(data string, minor uint8) (bad int) {
	for data != "" {
		var line string
		line, data, _ = strings.Cut(data, "\n")
		if line == "" || line[0] == '#' {
			continue
		}
		pkg, sym, ok := apiSymbol(line)
		if !ok {
			bad++
			continue
		}
		if sym == "" {
			continue // a line that names no member (unexported methods)
		}
		syms := a.since[pkg]
		if syms == nil {
			syms = map[string]uint8{}
			a.since[strings.Clone(pkg)] = syms
		}
		if _, seen := syms[sym]; !seen {
			syms[strings.Clone(sym)] = minor
		}
	}
	return bad
}

// apiSymbol reads one api line: its package's import path and the name
// it lists, "Name" or "Type.Member". Examples:
//
//	pkg strings, func CutPrefix(string, string) (string, bool)
//	pkg syscall (linux-386), const AF_ALG = 38
//	pkg net/http, method (*Request) Clone(context.Context) *Request
//	pkg go/ast, type File struct, FileStart token.Pos
//	pkg reflect, type Type interface, CanSeq() bool
//	pkg iter, type Seq[$0 interface{}] func(func($0) bool)
func apiSymbol(line string) (pkg, sym string, ok bool) {
	rest, ok := strings.CutPrefix(line, "pkg ")
	if !ok {
		return "", "", false
	}
	comma := strings.Index(rest, ", ")
	if comma < 0 {
		return "", "", false
	}
	pkg, _, _ = strings.Cut(rest[:comma], " ") // drop the platform: (linux-386)
	rest = rest[comma+2:]
	kind, rest, _ := strings.Cut(rest, " ")
	switch kind {
	case "func", "const", "var":
		name := identPrefix(rest)
		return pkg, name, name != ""
	case "method":
		// (*Pointer[$0]) Load() *$0
		recv, after, found := strings.Cut(rest, ") ")
		if !found {
			return "", "", false
		}
		recv = strings.TrimLeft(strings.TrimPrefix(recv, "("), "*")
		typ, name := identPrefix(recv), identPrefix(after)
		return pkg, typ + "." + name, typ != "" && name != ""
	case "type":
		typ := identPrefix(rest)
		if typ == "" {
			return "", "", false
		}
		rest = skipTypeParams(rest[len(typ):])
		if field, isField := strings.CutPrefix(rest, " struct, "); isField {
			name, written, _ := strings.Cut(field, " ")
			if name == "embedded" {
				// An embedded field is named by its type: *pkg.T[X] is T.
				written = strings.TrimPrefix(written, "*")
				if _, after, qualified := strings.Cut(written, "."); qualified {
					written = after
				}
				name = identPrefix(written)
			}
			return pkg, typ + "." + name, name != ""
		}
		if method, isMethod := strings.CutPrefix(rest, " interface, "); isMethod {
			if strings.HasPrefix(method, "unexported methods") || strings.Contains(method, " //deprecated") {
				return pkg, "", true // gopls's manifest skips them too
			}
			name := identPrefix(method)
			return pkg, typ + "." + name, name != ""
		}
		return pkg, typ, true
	}
	return "", "", false
}

// identPrefix is the Go identifier s starts with.
func identPrefix(s string) string {
	i := 0
	for i < len(s) {
		c := s[i]
		if c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80 {
			i++
			continue
		}
		break
	}
	return s[:i]
}

// skipTypeParams drops a type parameter list written at the start of s.
func skipTypeParams(s string) string {
	if !strings.HasPrefix(s, "[") {
		return s
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			depth--
			if depth == 0 {
				return s[i+1:]
			}
		}
	}
	return ""
}
