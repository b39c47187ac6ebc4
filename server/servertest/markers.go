package servertest

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"golang.org/x/tools/txtar"

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

// Arg is one marker argument.
type Arg struct {
	Str   string // string literal value, or the identifier's name
	Int   int
	Kind  ArgKind
	Key   string // for name=value: the name; the value is the rest of the Arg
	Quote bool   // the value was a string literal
}

// ArgKind says what an Arg holds.
type ArgKind int

const (
	ArgString ArgKind = iota
	ArgIdent
	ArgInt
)

// Marker is one call in a marker comment.
type Marker struct {
	Name   string
	Args   []Arg
	File   string // archive-relative path
	Line   int    // 0-based line of the comment
	source []byte // the file's content, for locating text on the line
}

func (m Marker) String() string { return fmt.Sprintf("%s:%d: @%s", m.File, m.Line+1, m.Name) }

// Location is a point in a workspace file.
type Location struct {
	File   string // archive-relative path
	Offset int    // byte offset
	Line   int    // 0-based
	Col    int    // 0-based UTF-8 byte column
	col16  int
}

// Position returns the location as an LSP position in encoding enc.
func (l Location) Position(enc string) map[string]int {
	if enc == "utf-8" {
		return map[string]int{"line": l.Line, "character": l.Col}
	}
	return map[string]int{"line": l.Line, "character": l.col16}
}

func (l Location) String() string { return fmt.Sprintf("%s:%d:%d", l.File, l.Line+1, l.Col+1) }

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

// Find locates the first occurrence of text on the marker's line, before
// the marker comment.
func (m Marker) Find(text string) (Location, error) {
	return findOnLine(m.File, m.source, m.Line, text)
}

// LocAt returns the location of byte offset in file rel.
func (e *Env) LocAt(rel string, offset int) Location {
	return locationAt(rel, e.Files[rel], offset)
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

// ParseMarkers finds the marker comments (//@ or #@) in a file.
func ParseMarkers(file string, src []byte) ([]Marker, error) {
	var out []Marker
	for i, line := range strings.Split(string(src), "\n") {
		_, body := markerComment(line)
		if body < 0 {
			continue
		}
		calls, err := parseCalls(line[body:])
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", file, i+1, err)
		}
		for _, c := range calls {
			c.File, c.Line, c.source = file, i, src
			out = append(out, c)
		}
	}
	return out, nil
}

// markerComment returns where a "//@" or "#@" comment starts on line and
// where its calls start, or -1, -1.
func markerComment(line string) (comment, body int) {
	for _, open := range []string{"//@", "#@"} {
		if i := strings.Index(line, open); i >= 0 {
			return i, i + len(open)
		}
	}
	return -1, -1
}

// parseCalls parses `name(args), name2(args)` up to the end of the line.
func parseCalls(s string) ([]Marker, error) {
	p := &markerParser{s: s}
	var out []Marker
	for {
		p.space()
		if p.done() {
			return out, nil
		}
		name := p.ident()
		if name == "" {
			return nil, fmt.Errorf("marker name expected at %q", p.rest())
		}
		m := Marker{Name: name}
		p.space()
		if !p.eat('(') {
			return nil, fmt.Errorf("@%s: '(' expected", name)
		}
		for p.space(); !p.eat(')'); p.space() {
			a, err := p.arg()
			if err != nil {
				return nil, fmt.Errorf("@%s: %v", name, err)
			}
			m.Args = append(m.Args, a)
			p.space()
			if !p.eat(',') && p.peek() != ')' {
				return nil, fmt.Errorf("@%s: ',' or ')' expected at %q", name, p.rest())
			}
		}
		out = append(out, m)
		p.space()
		if !p.eat(',') {
			p.space()
			if !p.done() && !strings.HasPrefix(p.rest(), "*/") {
				return nil, fmt.Errorf("unexpected %q after @%s(...)", p.rest(), name)
			}
			return out, nil
		}
	}
}

type markerParser struct {
	s string
	i int
}

func (p *markerParser) done() bool   { return p.i >= len(p.s) }
func (p *markerParser) rest() string { return p.s[p.i:] }
func (p *markerParser) peek() byte {
	if p.done() {
		return 0
	}
	return p.s[p.i]
}
func (p *markerParser) eat(b byte) bool {
	if p.peek() == b && !p.done() {
		p.i++
		return true
	}
	return false
}
func (p *markerParser) space() {
	for !p.done() && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\r') {
		p.i++
	}
}
func (p *markerParser) ident() string {
	start := p.i
	for !p.done() {
		r, size := utf8.DecodeRuneInString(p.s[p.i:])
		if !(unicode.IsLetter(r) || r == '_' || (p.i > start && (unicode.IsDigit(r) || r == '.'))) {
			break
		}
		p.i += size
	}
	return p.s[start:p.i]
}

func (p *markerParser) arg() (Arg, error) {
	start := p.i
	if id := p.ident(); id != "" {
		p.space()
		if p.eat('=') {
			p.space()
			v, err := p.arg()
			v.Key = id
			return v, err
		}
		return Arg{Kind: ArgIdent, Str: id}, nil
	}
	switch c := p.peek(); {
	case c == '"' || c == '`':
		end := p.i + 1
		for end < len(p.s) && p.s[end] != c {
			if p.s[end] == '\\' && c == '"' {
				end++
			}
			end++
		}
		if end >= len(p.s) {
			return Arg{}, fmt.Errorf("unterminated string at %q", p.s[start:])
		}
		v, err := strconv.Unquote(p.s[p.i : end+1])
		if err != nil {
			return Arg{}, fmt.Errorf("bad string %s: %v", p.s[p.i:end+1], err)
		}
		p.i = end + 1
		return Arg{Kind: ArgString, Str: v, Quote: true}, nil
	case c == '-' || (c >= '0' && c <= '9'):
		p.i++
		for !p.done() && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		n, err := strconv.Atoi(p.s[start:p.i])
		return Arg{Kind: ArgInt, Int: n, Str: p.s[start:p.i]}, err
	}
	return Arg{}, fmt.Errorf("argument expected at %q", p.rest())
}

// findOnLine locates the first occurrence of text on line (outside the
// marker comment itself).
func findOnLine(file string, src []byte, line int, text string) (Location, error) {
	start := 0
	for i := 0; i < line; i++ {
		nl := bytes.IndexByte(src[start:], '\n')
		if nl < 0 {
			return Location{}, fmt.Errorf("line %d out of range", line+1)
		}
		start += nl + 1
	}
	end := len(src)
	if nl := bytes.IndexByte(src[start:], '\n'); nl >= 0 {
		end = start + nl
	}
	content := string(src[start:end])
	if comment, _ := markerComment(content); comment >= 0 {
		content = content[:comment]
	}
	i := wholeWordIndex(content, text)
	if i < 0 {
		i = strings.Index(content, text)
	}
	if i < 0 || text == "" {
		return Location{}, fmt.Errorf("%q not found on line %d", text, line+1)
	}
	return locationAt(file, src, start+i), nil
}

// wholeWordIndex finds text where it is not part of a longer identifier, so
// "Greeter" finds the type and not the tail of "FriendlyGreeter".
func wholeWordIndex(s, text string) int {
	for from := 0; from <= len(s)-len(text); {
		i := strings.Index(s[from:], text)
		if i < 0 {
			return -1
		}
		i += from
		before, _ := utf8.DecodeLastRuneInString(s[:i])
		after, _ := utf8.DecodeRuneInString(s[i+len(text):])
		if !isIdentRune(before) && !isIdentRune(after) {
			return i
		}
		from = i + 1
	}
	return -1
}

func isIdentRune(r rune) bool {
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_')
}

func locationAt(file string, src []byte, offset int) Location {
	lineStart := bytes.LastIndexByte(src[:offset], '\n') + 1
	prefix := src[lineStart:offset]
	col16 := 0
	for _, r := range string(prefix) {
		col16 += max(1, utf16.RuneLen(r))
	}
	return Location{File: file, Offset: offset, Line: bytes.Count(src[:offset], []byte("\n")), Col: len(prefix), col16: col16}
}
