package libraries

import (
	"bufio"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Python libraries: the interpreter's standard library and the packages in
// the project's virtualenv (.venv, venv, $VIRTUAL_ENV), each top-level
// package of site-packages a library of its own at the version its
// .dist-info names; the single-file modules of a site-packages are one more.

// PythonEnv is what discovery needs of the interpreter the project uses.
type PythonEnv struct {
	Version string // "3.11.7"
	Stdlib  string // the standard library's folder
	// Builtins is the folder of a builtins.pyi stub of the built-in names
	// (see pythonBuiltins), or "".
	Builtins string
	// Sites are the site-packages folders on the interpreter's sys.path,
	// in import order: a virtualenv made with --system-site-packages
	// imports the system's packages after its own.
	Sites []string
	// Executable is the interpreter's own binary (sys.executable): what
	// runs it again without the launcher it was found through (a pyenv
	// shim is a shell script that forks a dozen processes).
	Executable string
}

// pythonEnvTimeout bounds the interpreter's first answer. It is longer than
// the go command's: a pyenv shim took 9 s of wall time (0.3 s of CPU) on a
// loaded machine, and without an answer there is no standard library.
const pythonEnvTimeout = 45 * time.Second

// More Python skip reasons.
const (
	BrokenInterpreter = "brokenInterpreter" // the virtualenv's python does not run (deleted or moved)
	NoInterpreter     = "noInterpreter"     // no python3 answers
)

// pythonProject reports whether root looks like a Python project.
func pythonProject(root string) bool {
	for _, marker := range []string{"pyproject.toml", "setup.py", "setup.cfg", "requirements.txt", "Pipfile", ".venv", "venv"} {
		if _, err := os.Stat(filepath.Join(root, marker)); err == nil {
			return true
		}
	}
	return false
}

// venvDir finds the project's virtualenv: .venv, venv, else $VIRTUAL_ENV.
func venvDir(root string) string {
	for _, name := range []string{".venv", "venv"} {
		dir := filepath.Join(root, name)
		if _, err := os.Stat(filepath.Join(dir, "pyvenv.cfg")); err == nil {
			return dir
		}
	}
	if v := os.Getenv("VIRTUAL_ENV"); v != "" && filepath.IsAbs(v) {
		return v
	}
	return ""
}

func (f *Found) discoverPython(ctx context.Context, root string, opts Options) {
	venv := venvDir(root)
	env := opts.Python
	interp := "" // the interpreter asked, which writes the built-in stubs
	if env == nil {
		if venv != "" {
			interp = filepath.Join(venv, "bin", "python3")
			if e, err := pythonEnv(ctx, interp); err == nil {
				env = &e
			} else {
				f.Skipped = append(f.Skipped, Skip{Library: interp, Reason: BrokenInterpreter, Detail: err.Error()})
			}
		}
		if env == nil {
			interp = "python3"
			if e, err := pythonEnv(ctx, interp); err == nil {
				env = &e
			} else {
				f.Skipped = append(f.Skipped, Skip{Library: "python3", Reason: NoInterpreter, Detail: err.Error()})
			}
		}
	}
	if env != nil && env.Stdlib != "" {
		if fi, err := os.Stat(env.Stdlib); err == nil && fi.IsDir() {
			f.Libraries = append(f.Libraries, Library{Lang: "python", Module: "stdlib", Version: env.Version, Dir: env.Stdlib})
		} else {
			f.Skipped = append(f.Skipped, Skip{Library: "python stdlib", Reason: BrokenInterpreter, Detail: env.Stdlib + " is missing"})
		}
	}
	var sites []string
	if venv != "" {
		// The packages stay usable without the interpreter: they are files.
		sites, _ = filepath.Glob(filepath.Join(venv, "lib", "python3*", "site-packages"))
	}
	if env != nil {
		for _, site := range env.Sites {
			if !slices.ContainsFunc(sites, func(s string) bool { return sameFolder(s, site) }) {
				sites = append(sites, site)
			}
		}
	}
	// typeshed's stubs, when present, say more of the built-in names than
	// the interpreter's introspection: they replace kast's own stubs.
	version := ""
	if env != nil {
		version = env.Version
	}
	if stubs, ok := f.discoverTypeshed(sites, version); ok {
		f.Libraries = append(f.Libraries, stubs)
	} else if env != nil {
		if env.Builtins == "" && interp != "" {
			env.Builtins = pythonBuiltins(ctx, cmp.Or(env.Executable, interp), env.Version)
		}
		if env.Builtins != "" && fileExists(filepath.Join(env.Builtins, "builtins.pyi")) {
			f.Libraries = append(f.Libraries, Library{Lang: "python", Module: "builtins", Version: builtinsVersion(env.Version), Dir: env.Builtins})
		}
	}
	// A package found in two folders is the one the first imports.
	seen := map[string]bool{}
	for _, site := range sites {
		for _, l := range sitePackages(site) {
			if l.Module != "site-modules" && seen[l.Module] {
				continue
			}
			seen[l.Module] = true
			f.Libraries = append(f.Libraries, l)
		}
	}
}

// pythonEnvScript prints what pythonEnv reads of an interpreter: its
// version, standard library and the site-packages folders on its sys.path.
const pythonEnvScript = `import json, os, sys, sysconfig
sites = [p for p in sys.path if os.path.basename(p) in ("site-packages", "dist-packages") and os.path.isdir(p)]
print(json.dumps({"Version": sys.version.split()[0], "Stdlib": sysconfig.get_paths()["stdlib"], "Sites": sites, "Executable": sys.executable}))`

// pythonEnv asks an interpreter for its version, standard library and
// site-packages folders (-I: without the user's site-packages or
// PYTHONPATH, which are not the project's).
func pythonEnv(ctx context.Context, interp string) (PythonEnv, error) {
	ctx, cancel := context.WithTimeout(ctx, pythonEnvTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, interp, "-I", "-c", pythonEnvScript).Output()
	if ctx.Err() == context.DeadlineExceeded {
		return PythonEnv{}, fmt.Errorf("%s gave no answer within %v", interp, pythonEnvTimeout)
	}
	if err != nil {
		return PythonEnv{}, err
	}
	var e PythonEnv
	if err = json.Unmarshal(out, &e); err == nil && !filepath.IsAbs(e.Executable) {
		e.Executable = ""
	}
	return e, err
}

// sitePackages lists the libraries of one site-packages folder.
func sitePackages(site string) []Library {
	versions := distVersions(site)
	entries, err := os.ReadDir(site)
	if err != nil {
		return nil
	}
	var out []Library
	var modules []string
	for _, e := range entries {
		name := e.Name()
		switch {
		// A private top-level package is indexed when a distribution
		// installs it: it is where public names are declared (pytest.raises
		// is _pytest's).
		case strings.HasPrefix(name, "_") && name != "_pytest" && versions[name] == "", strings.HasPrefix(name, "."), strings.Contains(name, ".dist-info"),
			strings.Contains(name, ".egg-info"), name == "__pycache__":
			continue
		case e.IsDir():
			if !hasPython(filepath.Join(site, name)) {
				continue
			}
			v := versions[name]
			if v == "" {
				v = "local-" + shortHash(filepath.Join(site, name))
			}
			out = append(out, Library{Lang: "python", Module: name, Version: v, Dir: filepath.Join(site, name)})
		case strings.HasSuffix(name, ".py") || strings.HasSuffix(name, ".pyi"):
			modules = append(modules, name+"="+versions[strings.TrimSuffix(strings.TrimSuffix(name, ".pyi"), ".py")])
		}
	}
	if len(modules) > 0 {
		slices.Sort(modules)
		// Their folder is the whole site-packages; Include keeps them to
		// its top-level files, and each package above owns its own folder.
		out = append(out, Library{Lang: "python", Module: "site-modules", Version: shortHash(site + "\n" + strings.Join(modules, "\n")), Dir: site})
	}
	return out
}

func hasPython(dir string) bool {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return false
	}
	for _, e := range entries {
		if n := e.Name(); strings.HasSuffix(n, ".py") || strings.HasSuffix(n, ".pyi") || e.IsDir() && n != "__pycache__" {
			return true
		}
	}
	return false
}

// distVersions maps each top-level name a distribution installs to its
// version, from the .dist-info folders' RECORD files.
func distVersions(site string) map[string]string {
	out := map[string]string{}
	infos, _ := filepath.Glob(filepath.Join(site, "*.dist-info"))
	for _, info := range infos {
		base := strings.TrimSuffix(filepath.Base(info), ".dist-info")
		i := strings.LastIndexByte(base, '-')
		if i < 0 {
			continue
		}
		version := base[i+1:]
		f, err := os.Open(filepath.Join(info, "RECORD"))
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			p, _, _ := strings.Cut(sc.Text(), ",")
			top, _, _ := strings.Cut(p, "/")
			top = strings.TrimSuffix(strings.TrimSuffix(top, ".py"), ".pyi")
			if top != "" && !strings.Contains(top, ".dist-info") && !strings.HasPrefix(top, "..") {
				out[top] = version
			}
		}
		f.Close()
	}
	// Packages installed by the system's package manager (Debian's
	// python3-*) carry .egg-info folders: top_level.txt names what they
	// install, PKG-INFO their version when the folder's name does not.
	eggs, _ := filepath.Glob(filepath.Join(site, "*.egg-info"))
	for _, egg := range eggs {
		base := strings.TrimSuffix(filepath.Base(egg), ".egg-info")
		_, version, _ := strings.Cut(base, "-")
		version, _, _ = strings.Cut(version, "-") // foo-1.0-py3.11
		if version == "" {
			version = pkgInfoVersion(filepath.Join(egg, "PKG-INFO"))
		}
		b, err := os.ReadFile(filepath.Join(egg, "top_level.txt"))
		if err != nil || version == "" {
			continue
		}
		for _, top := range strings.Fields(string(b)) {
			if _, taken := out[top]; !taken {
				out[top] = version
			}
		}
	}
	return out
}

// pkgInfoVersion is the Version field of a PKG-INFO file, or "".
func pkgInfoVersion(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return ""
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "Version:"); ok {
			return strings.TrimSpace(v)
		}
		if strings.TrimSpace(line) == "" {
			break // the headers end
		}
	}
	return ""
}

func shortHash(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// pythonInclude reports whether a Python library indexes path (relative
// parts given): sources and stubs, not tests, and for the single-file
// modules only the files at the top of site-packages.
func (l Library) pythonInclude(parts []string) bool {
	name := parts[len(parts)-1]
	if !strings.HasSuffix(name, ".py") && !strings.HasSuffix(name, ".pyi") {
		return false
	}
	switch l.Module {
	case "site-modules":
		return len(parts) == 1
	case "typeshed":
		return l.typeshedInclude(parts)
	}
	for _, p := range parts[:len(parts)-1] {
		switch p {
		// A tool's copy of typeshed (mypy/typeshed) is not its modules:
		// when used, it is a library of its own.
		case "test", "tests", "testing", "site-packages", "dist-packages", "idlelib", "turtledemo", "__pycache__", "typeshed":
			return false
		}
	}
	return true
}

// sameFolder reports whether a and b name one folder (the virtualenv's
// own site-packages, seen through a symlinked root or not).
func sameFolder(a, b string) bool {
	if a == b {
		return true
	}
	x, errA := os.Stat(a)
	y, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(x, y)
}

func fileExists(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}
