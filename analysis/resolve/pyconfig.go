package resolve

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// A project may tell its type checker which Python it targets (flask and
// click: `[tool.pyright] pythonVersion = "3.10"`) whatever interpreter
// runs it; pyright then reads typeshed's `if sys.version_info >= (3, 11):`
// blocks for that version, and so does kast: the configured version
// decides static conditions before the interpreter's.

// pythonConfiguredVersion is the Python version the workspace's
// pyrightconfig.json, else its pyproject.toml's [tool.pyright]
// pythonVersion, else its [tool.mypy] python_version names; nil when none
// does. Read once per resolver.
func (r *Resolver) pythonConfiguredVersion() []int {
	r.mu.Lock()
	v := r.pyConfigured
	r.mu.Unlock()
	if v != nil {
		return *v
	}
	var found []int
	if wr, ok := r.ws.(WorkspaceRoots); ok {
		for _, root := range wr.Roots() {
			if found = configuredPythonVersion(root); found != nil {
				break
			}
		}
	}
	r.mu.Lock()
	r.pyConfigured = &found
	r.mu.Unlock()
	return found
}

// configuredPythonVersion reads the version a root's type-checker
// configuration names, or nil.
func configuredPythonVersion(root string) []int {
	if b, err := os.ReadFile(filepath.Join(root, "pyrightconfig.json")); err == nil {
		var cfg struct{ PythonVersion string }
		if json.Unmarshal(b, &cfg) == nil {
			if v := dottedInts(cfg.PythonVersion); len(v) >= 2 {
				return v
			}
		}
	}
	b, err := os.ReadFile(filepath.Join(root, "pyproject.toml"))
	if err != nil {
		return nil
	}
	pyright := tomlString(b, "tool.pyright", "pythonVersion")
	if v := dottedInts(pyright); len(v) >= 2 {
		return v
	}
	if v := dottedInts(tomlString(b, "tool.mypy", "python_version")); len(v) >= 2 {
		return v
	}
	return nil
}

// tomlString is the quoted string value of key in a TOML file's [table],
// or "": the few lines of pyproject.toml read here need no TOML parser.
func tomlString(b []byte, table, key string) string {
	in := false
	sc := bufio.NewScanner(bytes.NewReader(b))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "[") {
			in = strings.Trim(line, "[] ") == table
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !in || !ok || strings.TrimSpace(k) != key {
			continue
		}
		v, _, _ = strings.Cut(strings.TrimSpace(v), "#")
		return strings.Trim(strings.TrimSpace(v), `"'`)
	}
	return ""
}
