package resolve_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis"
	ft "github.com/kast-dev/kast/analysis/internal/factstest"
	"github.com/kast-dev/kast/analysis/lang"
	"github.com/kast-dev/kast/analysis/naming"
	"github.com/kast-dev/kast/analysis/resolve"
)

// workspace extracts files given as path → source.
func workspace(t *testing.T, files map[string]string) *resolve.Memory {
	t.Helper()
	var facts []*analysis.FileFacts
	for path, src := range files {
		f, err := lang.Extract(context.Background(), path, []byte(src))
		if err != nil {
			t.Fatal(err)
		}
		facts = append(facts, f)
	}
	return resolve.NewMemory(facts...)
}

// offsetOf is the byte offset of the n-th (0-based) occurrence of needle in
// the file, plus delta.
func offsetOf(t *testing.T, src, needle string, n, delta int) int {
	t.Helper()
	at := -1
	for range n + 1 {
		i := strings.Index(src[at+1:], needle)
		if i < 0 {
			t.Fatalf("%q: occurrence %d not found", needle, n)
		}
		at += i + 1
	}
	return at + delta
}

// defID finds a definition by file and qualified name.
func defID(t *testing.T, ws resolve.Workspace, path, qualified string) resolve.DefID {
	t.Helper()
	f := ws.File(path)
	for i := range f.Defs {
		if naming.Contained(f, int32(i)) == qualified {
			return resolve.DefID{Path: path, Index: int32(i)}
		}
	}
	t.Fatalf("%s: no def %s in %q", path, qualified, ft.Defs(f))
	return resolve.DefID{}
}

func qualified(ws resolve.Workspace, id resolve.DefID) string {
	if id.Index == analysis.None {
		return id.Path + ":<top>"
	}
	return id.Path + ":" + naming.Contained(ws.File(id.Path), id.Index)
}

var kotlinSample = map[string]string{
	"sample/Greeter.kt":      "package sample\n\nfun greet(name: String): String = \"hi $name\"\n",
	"sample/Use.kt":          "package sample\n\nfun use(): String = greet(\"kast\")\n",
	"sample/SecondaryUse.kt": "package sample\n\nfun useAgain(): String = greet(\"again\")\n",
	"sample/Types.kt":        "package sample\n\ninterface Greeter\nopen class FriendlyGreeter : Greeter\nclass LoudGreeter : FriendlyGreeter()\n",
	"sample/Broken.kt":       "package sample\n\nfun broken( = \"oops\"\n",
}

func TestKotlinSample(t *testing.T) {
	ws := workspace(t, kotlinSample)
	r := resolve.New(ws)
	greet := defID(t, ws, "sample/Greeter.kt", "greet")

	use := kotlinSample["sample/Use.kt"]
	got := r.DefinitionAt("sample/Use.kt", offsetOf(t, use, "greet", 0, 2))
	if len(got) == 0 || got[0].Def != greet || got[0].Uncertain || got[0].Via != resolve.ViaPackage {
		t.Fatalf("greet in Use.kt resolved to %+v, want %v", got, greet)
	}

	var refFiles []string
	for _, ref := range r.References(greet) {
		if ref.Uncertain {
			t.Errorf("reference %+v is uncertain", ref)
		}
		refFiles = append(refFiles, ref.Ref.Path)
	}
	slices.Sort(refFiles)
	if want := []string{"sample/SecondaryUse.kt", "sample/Use.kt"}; !slices.Equal(refFiles, want) {
		t.Errorf("references of greet in %v, want %v", refFiles, want)
	}

	var callers []string
	for _, c := range r.Callers(greet) {
		callers = append(callers, qualified(ws, c.Caller))
	}
	slices.Sort(callers)
	if want := []string{"sample/SecondaryUse.kt:useAgain", "sample/Use.kt:use"}; !slices.Equal(callers, want) {
		t.Errorf("callers of greet = %v, want %v", callers, want)
	}

	friendly := defID(t, ws, "sample/Types.kt", "FriendlyGreeter")
	supers := r.Supertypes(friendly)
	if len(supers) != 1 || len(supers[0].Targets) == 0 || supers[0].Targets[0].Def != defID(t, ws, "sample/Types.kt", "Greeter") {
		t.Errorf("supertypes of FriendlyGreeter = %+v, want Greeter", supers)
	}
	subs := r.Subtypes(friendly)
	if len(subs) != 1 || subs[0].Def != defID(t, ws, "sample/Types.kt", "LoudGreeter") || subs[0].Uncertain {
		t.Errorf("subtypes of FriendlyGreeter = %+v, want LoudGreeter", subs)
	}
	// The Greeter interface is not the greet function, and the class
	// Greeter is not confused with the file Greeter.kt.
	if subs := r.Subtypes(defID(t, ws, "sample/Types.kt", "Greeter")); len(subs) != 1 || subs[0].Name != "FriendlyGreeter" {
		t.Errorf("subtypes of Greeter = %+v, want FriendlyGreeter", subs)
	}

	for path := range kotlinSample {
		errs := ws.File(path).Errors
		if broken := path == "sample/Broken.kt"; broken != (len(errs) > 0) {
			t.Errorf("%s: syntax errors %v", path, errs)
		}
	}
}

func TestMemoryUpdates(t *testing.T) {
	ws := workspace(t, kotlinSample)
	use := kotlinSample["sample/Use.kt"]
	at := offsetOf(t, use, "greet", 0, 0)
	ws.Remove("sample/Greeter.kt")
	if got := resolve.New(ws).DefinitionAt("sample/Use.kt", at); len(got) != 0 {
		t.Errorf("greet resolved after its file was removed: %+v", got)
	}
	moved, err := lang.Extract(context.Background(), "other/Greeter.kt", []byte("package other\n\nfun greet(n: String) = n\n"))
	if err != nil {
		t.Fatal(err)
	}
	ws.Put(moved)
	got := resolve.New(ws).DefinitionAt("sample/Use.kt", at)
	if len(got) != 1 || got[0].Def.Path != "other/Greeter.kt" || !got[0].Uncertain || got[0].Via != resolve.ViaWorkspace {
		t.Errorf("greet in another package, not imported: %+v, want one uncertain guess", got)
	}
}
