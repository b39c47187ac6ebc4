package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/markers"
	"github.com/kast-dev/kast/server"
)

// update rewrites golden sections (files named "@name") with what the
// checkers saw: go test ./... -run TestMarkers -update
var update = flag.Bool("update", false, "rewrite golden sections of marker archives")

// A marker test is a txtar archive: its sections form a small workspace whose
// comments carry markers, in the gopls style:
//
//	fun greet() = 1 //@loc(greetDecl, "greet")
//	val x = greet() //@def("greet", greetDecl), refs(greetDecl, "greet")
//
// A marker comment starts with //@ or #@ and holds calls name(arg, ...). An
// argument is a Go string literal, an identifier, an integer or name=value.
// loc(name, "text") binds name to the first "text" on its line; every other
// marker is handed to the Checker registered under its name. Sections named
// "@name" are golden outputs, "capabilities.json" replaces the client
// capabilities and "skip" skips the archive with its content as the reason.

// The format's types live in analysis/markers; these names keep the harness's.
type (
	Arg      = markers.Arg
	ArgKind  = markers.ArgKind
	Marker   = markers.Marker
	Location = markers.Location
)

const (
	ArgString = markers.ArgString
	ArgIdent  = markers.ArgIdent
	ArgInt    = markers.ArgInt
)

// ParseMarkers finds the marker comments (//@ or #@) in a file.
func ParseMarkers(file string, src []byte) ([]Marker, error) { return markers.ParseMarkers(file, src) }

// Env is what a checker works with.
type Env struct {
	T        *testing.T
	Ctx      context.Context
	Client   *Client
	Conn     *server.Conn
	Root     string
	Encoding string
	Files    map[string][]byte
	Locs     map[string]Location
	archive  *txtar.Archive
	path     string
	dirty    bool
}

// Path returns the absolute path of an archive-relative file.
func (e *Env) Path(rel string) string { return filepath.Join(e.Root, filepath.FromSlash(rel)) }

// URI returns the file URI of an archive-relative file.
func (e *Env) URI(rel string) string { return FileURI(e.Path(rel)) }

// Loc resolves an argument to a location: an identifier names a bound
// location, a string is found on the marker's own line.
func (e *Env) Loc(m Marker, a Arg) Location {
	e.T.Helper()
	if a.Kind == ArgIdent {
		loc, ok := e.Locs[a.Str]
		if !ok {
			e.T.Fatalf("%v: no location named %q", m, a.Str)
		}
		return loc
	}
	if a.Kind != ArgString {
		e.T.Fatalf("%v: want a location, got %v", m, a)
	}
	loc, err := m.Find(a.Str)
	if err != nil {
		e.T.Fatalf("%v: %v", m, err)
	}
	return loc
}

// LocAt returns the location of byte offset in file rel.
func (e *Env) LocAt(rel string, offset int) Location {
	return markers.LocationAt(rel, e.Files[rel], offset)
}

// Golden returns the content of the golden section "@name".
func (e *Env) Golden(name string) ([]byte, bool) {
	for _, f := range e.archive.Files {
		if f.Name == "@"+name {
			return f.Data, true
		}
	}
	return nil, false
}

// CheckGolden compares got with the golden section "@name", or records it
// when run with -update.
func (e *Env) CheckGolden(m Marker, name string, got []byte) {
	e.T.Helper()
	if len(got) > 0 && got[len(got)-1] != '\n' {
		got = append(got, '\n')
	}
	if *update {
		for i, f := range e.archive.Files {
			if f.Name == "@"+name {
				e.archive.Files[i].Data = got
				e.dirty = true
				return
			}
		}
		e.archive.Files = append(e.archive.Files, txtar.File{Name: "@" + name, Data: got})
		e.dirty = true
		return
	}
	want, ok := e.Golden(name)
	if !ok {
		e.T.Errorf("%v: no golden section @%s (run with -update to create it); got:\n%s", m, name, got)
		return
	}
	if !bytes.Equal(want, got) {
		e.T.Errorf("%v: @%s mismatch\n--- want\n%s--- got\n%s", m, name, want, got)
	}
}

// Checker asserts one action marker.
type Checker func(env *Env, m Marker)

// Runner runs marker archives against a fresh server each.
type Runner struct {
	// NewServer returns the server under test; each archive gets its own.
	NewServer func(t testing.TB) *server.Server
	// Checkers by marker name.
	Checkers map[string]Checker
	// Capabilities the client announces unless the archive overrides them.
	Capabilities map[string]any
}

// Run runs every archive matching pattern (a glob relative to the test's
// directory) as a subtest named after the file.
func (r Runner) Run(t *testing.T, pattern string) {
	files, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no marker archives match %s", pattern)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), func(t *testing.T) {
			r.runArchive(t, path)
		})
	}
}

func (r Runner) runArchive(t *testing.T, path string) {
	ar, err := txtar.ParseFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	env := &Env{T: t, Ctx: ctx, Root: t.TempDir(), Files: map[string][]byte{}, Locs: map[string]Location{}, archive: ar, path: path}
	caps := r.Capabilities
	var markers []Marker
	for _, f := range ar.Files {
		switch {
		case f.Name == "skip":
			t.Skip(strings.TrimSpace(string(f.Data)))
		case f.Name == "capabilities.json":
			if err := json.Unmarshal(f.Data, &caps); err != nil {
				t.Fatalf("capabilities.json: %v", err)
			}
			continue
		case strings.HasPrefix(f.Name, "@"):
			continue
		}
		env.Files[f.Name] = f.Data
		dst := env.Path(f.Name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
			t.Fatal(err)
		}
		ms, err := ParseMarkers(f.Name, f.Data)
		if err != nil {
			t.Fatal(err)
		}
		markers = append(markers, ms...)
	}

	env.Client, env.Conn = Pipe(t, r.NewServer(t), Header)
	res, err := env.Client.Initialize(ctx, env.Root, caps)
	if err != nil {
		t.Fatal(err)
	}
	env.Encoding = res.Capabilities.PositionEncoding
	names := make([]string, 0, len(env.Files))
	for name := range env.Files {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if lang := LanguageID(name); lang != "" {
			if err := env.Client.DidOpen(env.URI(name), lang, 1, string(env.Files[name])); err != nil {
				t.Fatal(err)
			}
		}
	}

	for _, m := range markers {
		if m.Name != "loc" {
			continue
		}
		if len(m.Args) != 2 || m.Args[0].Kind != ArgIdent {
			t.Fatalf("%v: want loc(name, \"text\")", m)
		}
		if _, dup := env.Locs[m.Args[0].Str]; dup {
			t.Fatalf("%v: location %q bound twice", m, m.Args[0].Str)
		}
		env.Locs[m.Args[0].Str] = env.Loc(m, m.Args[1])
	}
	for _, m := range markers {
		if m.Name == "loc" {
			continue
		}
		check, ok := r.Checkers[m.Name]
		if !ok {
			t.Errorf("%v: unknown marker", m)
			continue
		}
		check(env, m)
	}
	if env.dirty {
		if err := os.WriteFile(path, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// LanguageID maps a file name to its LSP language id, or "" for files that
// are not source code.
func LanguageID(name string) string {
	return map[string]string{
		".kt": "kotlin", ".kts": "kotlin", ".go": "go", ".py": "python", ".ts": "typescript",
		".tsx": "typescriptreact", ".js": "javascript", ".jsx": "javascriptreact", ".mjs": "javascript",
		".java": "java", ".rs": "rust", ".rb": "ruby",
	}[filepath.Ext(name)]
}
