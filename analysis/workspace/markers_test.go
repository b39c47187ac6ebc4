package workspace_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/markers"
	"github.com/kast-dev/kast/analysis/resolve"
	"github.com/kast-dev/kast/analysis/workspace"
)

// Resolution markers, checked against the engine over extracted facts in
// memory and again over the persistent index, which must agree:
//
//	loc(name, "text")             bind name to "text" on this line
//	def("text", target)           the name at "text" resolves, confidently, to the definition at target
//	nodef("text")                 the name at "text" has no confident definition
//	refs(target, loc...)          the confident references of the definition at target are exactly locs
//	callers(target, "name"...)    the definitions confidently calling target, by name
//	supers(target, loc...)        the direct supertypes of target resolve to the definitions at locs
//	subs(target, loc...)          the direct subtypes of target are the definitions at locs
//
// A target or loc is a bound name or a string on the marker's line.
func TestResolutionMarkers(t *testing.T) {
	eachResolveArchive(t, func(t *testing.T, ar *txtar.Archive) {
		root := t.TempDir()
		var found []markers.Marker
		var files []*analysis.FileFacts
		for _, f := range ar.Files {
			dst := writeFile(t, root, f)
			ms, err := markers.ParseMarkers(f.Name, f.Data)
			if err != nil {
				t.Fatal(err)
			}
			found = append(found, ms...)
			if !workspace.Supported(dst) {
				continue
			}
			facts, err := lang.Extract(context.Background(), dst, f.Data)
			if err != nil {
				t.Fatalf("extract %s: %v", f.Name, err)
			}
			files = append(files, facts)
		}
		if len(found) == 0 {
			t.Fatal("archive has no markers")
		}

		t.Run("engine", func(t *testing.T) {
			checkMarkers(t, root, found, resolve.New(resolve.NewMemory(files...)), resolve.NewMemory(files...))
		})
		t.Run("index", func(t *testing.T) {
			checkMarkers(t, root, found, openIndexed(t, root).Resolver(), resolve.NewMemory(files...))
		})
	})
}

// writeFile writes an archive's file under root and returns its path.
func writeFile(t *testing.T, root string, f txtar.File) string {
	t.Helper()
	dst := filepath.Join(root, filepath.FromSlash(f.Name))
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, f.Data, 0o644); err != nil {
		t.Fatal(err)
	}
	return dst
}

// openIndexed opens a workspace at root with an index of its own, brought
// up to date, and closes it when the test ends.
func openIndexed(t *testing.T, root string) *workspace.Workspace {
	t.Helper()
	return workspace.OpenRefreshed(t, root, workspace.Options{IndexDir: filepath.Join(t.TempDir(), "index"), Version: "test"})
}

// eachResolveArchive runs fn as a subtest on every resolution fixture under
// testdata/resolve.
func eachResolveArchive(t *testing.T, fn func(t *testing.T, ar *txtar.Archive)) {
	archives, _ := filepath.Glob("../../testdata/resolve/*/*.txtar")
	if len(archives) == 0 {
		t.Fatal("no archives under testdata/resolve")
	}
	for _, path := range archives {
		name := strings.TrimSuffix(strings.TrimPrefix(path, "../../testdata/resolve/"), ".txtar")
		t.Run(name, func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			if err != nil {
				t.Fatal(err)
			}
			fn(t, ar)
		})
	}
}

type markerEnv struct {
	t     *testing.T
	root  string
	r     *resolve.Resolver
	facts resolve.Workspace // for turning locations into definitions
	locs  map[string]markers.Location
}

func checkMarkers(t *testing.T, root string, found []markers.Marker, r *resolve.Resolver, facts resolve.Workspace) {
	env := &markerEnv{t: t, root: root, r: r, facts: facts, locs: map[string]markers.Location{}}
	for _, m := range found {
		if m.Name == "loc" {
			env.locs[m.Args[0].Str] = env.loc(m, m.Args[1])
		}
	}
	for _, m := range found {
		switch m.Name {
		case "loc":
		case "def":
			env.checkDef(m)
		case "nodef":
			if c := env.confident(m, env.loc(m, m.Args[0])); c != nil {
				t.Errorf("%v: want no confident definition, got %s (%s, %.2f)", m, env.describe(c.Def), c.Via, c.Confidence)
			}
		case "refs":
			env.checkRefs(m)
		case "callers":
			env.checkCallers(m)
		case "supers", "subs":
			env.checkHierarchy(m)
		default:
			t.Errorf("%v: unknown marker", m)
		}
	}
}

func (e *markerEnv) loc(m markers.Marker, a markers.Arg) markers.Location {
	e.t.Helper()
	if a.Kind == markers.ArgIdent {
		l, ok := e.locs[a.Str]
		if !ok {
			e.t.Fatalf("%v: no location named %q", m, a.Str)
		}
		return l
	}
	l, err := m.Find(a.Str)
	if err != nil {
		e.t.Fatalf("%v: %v", m, err)
	}
	return l
}

func (e *markerEnv) path(l markers.Location) string {
	return filepath.Join(e.root, filepath.FromSlash(l.File))
}

// defAt is the definition whose name starts at l.
func (e *markerEnv) defAt(m markers.Marker, l markers.Location) resolve.DefID {
	e.t.Helper()
	path := e.path(l)
	if f := e.facts.File(path); f != nil {
		for i, d := range f.Defs {
			if d.NameSpan.Start == l.Offset {
				return resolve.DefID{Path: path, Index: int32(i)}
			}
		}
	}
	e.t.Fatalf("%v: no definition named at %v", m, l)
	return resolve.DefID{}
}

// confident returns the best candidate at l if it is not a guess.
func (e *markerEnv) confident(m markers.Marker, l markers.Location) *resolve.Candidate {
	for _, c := range e.r.DefinitionAt(e.path(l), l.Offset) {
		if !c.Uncertain {
			return &c
		}
		break
	}
	return nil
}

func (e *markerEnv) describe(d resolve.DefID) string {
	f := e.facts.File(d.Path)
	if f == nil || d.Index < 0 || int(d.Index) >= len(f.Defs) {
		return fmt.Sprintf("%s#%d", d.Path, d.Index)
	}
	def := f.Defs[d.Index]
	rel, _ := filepath.Rel(e.root, d.Path)
	return fmt.Sprintf("%s %s at %s:%d:%d", def.Kind, def.Name, filepath.ToSlash(rel), def.NameSpan.StartPoint.Line+1, def.NameSpan.StartPoint.Col+1)
}

func (e *markerEnv) checkDef(m markers.Marker) {
	at := e.loc(m, m.Args[0])
	want := e.defAt(m, e.loc(m, m.Args[1]))
	c := e.confident(m, at)
	switch {
	case c == nil:
		e.t.Errorf("%v: %q has no confident definition; want %s (candidates %v)", m, m.Args[0].Str, e.describe(want), e.r.DefinitionAt(e.path(at), at.Offset))
	case c.Def != want:
		e.t.Errorf("%v: %q resolves to %s via %s; want %s", m, m.Args[0].Str, e.describe(c.Def), c.Via, e.describe(want))
	}
}

func (e *markerEnv) spanKey(path string, offset int) string {
	rel, _ := filepath.Rel(e.root, path)
	return fmt.Sprintf("%s@%d", filepath.ToSlash(rel), offset)
}

func (e *markerEnv) checkRefs(m markers.Marker) {
	def := e.defAt(m, e.loc(m, m.Args[0]))
	var want, got []string
	for _, a := range m.Args[1:] {
		l := e.loc(m, a)
		want = append(want, e.spanKey(e.path(l), l.Offset))
	}
	for _, r := range e.r.References(def) {
		if !r.Uncertain {
			got = append(got, e.spanKey(r.Ref.Path, r.Span.Start))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		e.t.Errorf("%v: references of %s\n got %v\nwant %v", m, e.describe(def), got, want)
	}
}

func (e *markerEnv) checkCallers(m markers.Marker) {
	def := e.defAt(m, e.loc(m, m.Args[0]))
	var want, got []string
	for _, a := range m.Args[1:] {
		want = append(want, a.Str)
	}
	for _, c := range e.r.Callers(def) {
		if c.Uncertain {
			continue // a guessed call site is not a caller
		}
		name := "<top level>"
		if f := e.facts.File(c.Caller.Path); f != nil && c.Caller.Index >= 0 {
			name = f.Defs[c.Caller.Index].Name
		}
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		e.t.Errorf("%v: callers of %s: got %v, want %v", m, e.describe(def), got, want)
	}
}

func (e *markerEnv) checkHierarchy(m markers.Marker) {
	def := e.defAt(m, e.loc(m, m.Args[0]))
	var want, got []string
	for _, a := range m.Args[1:] {
		want = append(want, e.describe(e.defAt(m, e.loc(m, a))))
	}
	if m.Name == "supers" {
		for _, s := range e.r.Supertypes(def) {
			for _, c := range s.Targets {
				if !c.Uncertain {
					got = append(got, e.describe(c.Def))
				}
				break
			}
		}
	} else {
		for _, c := range e.r.Subtypes(def) {
			got = append(got, e.describe(c.Def))
		}
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(want, got) {
		e.t.Errorf("%v: %s of %s\n got %v\nwant %v", m, m.Name, e.describe(def), got, want)
	}
}
