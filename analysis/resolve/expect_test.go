package resolve_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/analysis/resolve"
)

// A use of an expect declaration lists it and every actual, all confident,
// the JVM actual first: a JVM build binds there.
func TestExpectActualDefinitionListsBoth(t *testing.T) {
	files := map[string]string{
		"lib/src/commonMain/kotlin/clock/Clock.kt": "package clock\n\nexpect fun now(): Long\n\nexpect class Timer() {\n    fun start()\n}\n",
		"lib/src/nativeMain/kotlin/clock/Clock.kt": "package clock\n\nactual fun now(): Long = 0L\n\nactual class Timer actual constructor() {\n    actual fun start() {}\n}\n",
		"lib/src/jvmMain/kotlin/clock/Clock.kt":    "package clock\n\nactual fun now(): Long = System.nanoTime()\n\nactual class Timer actual constructor() {\n    actual fun start() {}\n}\n",
		"lib/src/commonMain/kotlin/clock/Use.kt":   "package clock\n\nfun use(t: Timer): Long {\n    t.start()\n    return now()\n}\n",
	}
	ws := workspace(t, files)
	r := resolve.New(ws)
	use := files["lib/src/commonMain/kotlin/clock/Use.kt"]
	for _, needle := range []string{"now()", "start()"} {
		got := r.DefinitionAt("lib/src/commonMain/kotlin/clock/Use.kt", offsetOf(t, use, needle, 0, 0))
		var paths []string
		for _, c := range got {
			if c.Uncertain {
				t.Errorf("%s: %s is a guess", needle, c.Def.Path)
			}
			paths = append(paths, strings.Split(c.Def.Path, "/")[2])
		}
		if len(paths) != 3 || paths[0] != "jvmMain" || !slices.Contains(paths, "commonMain") || !slices.Contains(paths, "nativeMain") {
			t.Errorf("%s: definitions in %v, want jvmMain first, then nativeMain and commonMain", needle, paths)
		}
	}
}
