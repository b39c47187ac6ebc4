package workspace_test

import (
	"maps"
	"slices"
	"testing"

	"golang.org/x/tools/txtar"

	"github.com/kast-dev/kast/analysis/workspace"
)

// Bare names of a package's declarations, used in its other files: those
// settled as a group (a file that neither declares nor imports the name,
// in functions and at the top level, beside files for other platforms
// that declare it again), and those that must be resolved each: a file
// declaring a local, a parameter or its own top-level declaration of the
// name (a field so named, around a method's body), one importing a
// package so named, one with a dot import, and an external test package
// of the same folder that declares the name again. Inside types and
// methods they settle too, Go naming no member plainly: where no type of
// the folder carries a member so named (two), and where one does (three:
// the field Code that U and V embed through Base).
const bareSettledFixture = `
-- go.mod --
module example.com/m
-- sys/errno_linux.go --
package sys

type Errno uintptr

func (e Errno) Error() string { return "errno" }
-- sys/errno_windows.go --
package sys

type Errno uint32

func (e Errno) Error() string { return "errno" }
-- sys/size.go --
package sys

const Size = 4
-- sys/a_linux.go --
package sys

const EPERM = Errno(1)

func A() error { return Errno(2) }
-- sys/b_windows.go --
package sys

var EBADF = Errno(9)

func B() Errno { var e Errno = Errno(Size); return e }
-- sys/c.go --
package sys

func C() error { return Errno(3) }
-- sys/local.go --
package sys

func L() error {
	Errno := func(n int) error { return nil }
	return Errno(4)
}

func M() error { return Errno(5) }
-- sys/param.go --
package sys

func P(Errno int) int { return Errno }

func Q() error { return Errno(6) }
-- sys/imports.go --
package sys

import Errno "errors"

func I() error { return Errno.New("x") }
-- sys/dot.go --
package sys

import . "example.com/m/other"

func D() error { return Errno(7) + Other() }
-- sys/method.go --
package sys

type T struct{ Errno int }

func (t T) M() error { return Errno(8) }

func F() error { return Errno(10) }
-- sys/ext_test.go --
package sys_test

type Errno int

func E() Errno { return Errno(11) }
-- sys/ext2_test.go --
package sys_test

func E2() Errno { return Errno(12) }
-- two/code.go --
package two

type Code int
-- two/m1.go --
package two

type A struct{ c Code }

func (A) F() Code { return Code(1) + Code(2) }
-- two/m2.go --
package two

type B struct{ c Code }

func (B) G() Code { return Code(3) }
-- three/code.go --
package three

type Code int

type Base struct{ Code Code }
-- three/m1.go --
package three

type U struct{ Base }

func (u U) G() Code { return Code(2) + Code(3) }
-- three/m2.go --
package three

type V struct{ Base }

func (v V) H() Code { return Code(4) }
-- other/other.go --
package other

func Other() error { return nil }
`

// Settling bare names by folder and package gives every definition the
// references that resolving each gives, before the pass and after it, and
// it is what answered for the files it may settle, never for the others.
func TestBareSettledReferencesEqualResolvingEach(t *testing.T) {
	ws, root := openArchive(t, txtar.Parse([]byte(bareSettledFixture)))
	workspace.ReadSpansFromFacts(t)
	spansRead := hearSpansRead(t, root)
	if certainBeforeAndAfter(t, ws) == 0 {
		t.Fatal("no definition has references")
	}
	read := spansRead()
	// A group's representative is resolved (its own spans are not read):
	// of the settled files, at least all but one have their spans read.
	for _, settled := range [][]string{{"sys/a_linux.go", "sys/b_windows.go", "sys/c.go"}, {"two/m1.go", "two/m2.go"}, {"three/m1.go", "three/m2.go"}} {
		n := 0
		for _, want := range settled {
			if read[want] {
				n++
			}
		}
		if n < len(settled)-1 {
			t.Errorf("%d of %v had their references settled; want at least %d", n, settled, len(settled)-1)
		}
	}
	for _, never := range []string{"sys/local.go", "sys/param.go", "sys/imports.go", "sys/dot.go", "sys/method.go",
		"sys/ext_test.go", "sys/ext2_test.go", "sys/errno_linux.go", "sys/errno_windows.go"} {
		if read[never] {
			t.Errorf("%s: its references were settled; want each resolved", never)
		}
	}
	if t.Failed() {
		t.Logf("settled: %v", slices.Sorted(maps.Keys(read)))
	}
}
