package complete

import (
	"maps"
	"slices"
	"testing"
)

func TestPythonExports(t *testing.T) {
	for _, c := range []struct {
		name, src string
		want      []string // nil: no __all__ this reads
	}{
		{"list", "__all__ = [\n    'Any',  # a comment\n    \"Callable\",\n]\nT = 1\n", []string{"Any", "Callable"}},
		{"tuple and additions", "__all__ = ('a',)\n__all__ += ['b']\n__all__.extend([\n 'c'])\n__all__.append('d')\n", []string{"a", "b", "c", "d"}},
		{"annotated", "__all__: list[str] = ['x']\n", []string{"x"}},
		{"in a block", "if x:\n    __all__ += ['y']\n__all__ = ['x']\n", []string{"x", "y"}},
		{"mentioned", "\"\"\"Names not in __all__ are private.\"\"\"\n# keep __all__ sorted\n__all__ = ['x']\nclass io:\n    __all__ = ['IO']\n", []string{"x"}},
		{"computed", "__all__ = ['x'] + other.__all__\n", nil},
		{"from a name", "__all__ = __always_supported + ('new',)\n", nil},
		{"extended by a call", "__all__ = ['x']\n__all__.extend(_names(posix))\n", nil},
		{"none", "x = 1\n_all__ = ['y']\n", nil},
	} {
		got, ok := pythonExports([]byte(c.src))
		if c.want == nil {
			if ok {
				t.Errorf("%s: read %v, want no __all__", c.name, got)
			}
			continue
		}
		if names := slices.Sorted(maps.Keys(got)); !ok || !slices.Equal(names, c.want) {
			t.Errorf("%s: %v %v, want %v", c.name, names, ok, c.want)
		}
	}
}
