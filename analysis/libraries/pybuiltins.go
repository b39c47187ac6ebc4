package libraries

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/kast-dev/kast/storage"
)

// Python's compiled modules (builtins with str and len, sys, time, math,
// _socket…) have no source: the interpreter is asked for them once per
// version and each is written as a stub, name.pyi, in one cache folder,
// which is then indexed like any library (the way editors without
// typeshed generate skeletons of compiled modules). Definition, hover and
// completion then have a target for sys.modules or math.floor.

// stubRevision changes when the stubs' script does, so that a cache
// written by an older kast is not reused (it names the folder and the
// library's version).
const stubRevision = "-k7"

// stubsScript prints a JSON object of stubs by module name: the built-in
// modules and the extension modules of lib-dynload, classes with their
// methods, functions with signatures where the interpreter knows them,
// other attributes with their type, and docstrings.
const stubsScript = stubReturns + `
import builtins, glob, importlib, inspect, json, keyword, os, sys, sysconfig
def sig(obj, method):
    try:
        return str(inspect.signature(obj))
    except (TypeError, ValueError):
        return "(self, *args, **kwargs)" if method else "(*args, **kwargs)"
def doc(obj, indent):
    d = obj.__doc__ if isinstance(getattr(obj, "__doc__", None), str) else None
    if not d:
        return ""
    d = inspect.cleandoc(d).replace("\\", "\\\\").replace('"""', '\\"\\"\\"')
    return indent + '"""' + d.replace("\n", "\n" + indent) + '"""\n'
def fn(name, sg, obj, indent, owner):
    d = doc(obj, indent + "    ")
    ret = RETURNS.get(owner + "." + name)
    return indent + "def %s%s%s:" % (name, sg, " -> " + ret if ret else "") + ("\n" + d if d else " ...\n")
def cls(name, obj, modname):
    bases = ", ".join(b.__name__ for b in obj.__bases__ if b is not object and (b.__module__ in ("builtins", modname) or b.__module__ == obj.__module__) and b.__name__.isidentifier())
    out = ["class %s(%s):\n" % (name, bases) + doc(obj, "    ")]
    if obj is object:
        # What every instance has that vars(object) does not list.
        out.append("    __doc__: str | None\n    __dict__: dict\n    __module__: str\n    __annotations__: dict\n")
    for m, v in sorted(vars(obj).items()):
        if m == "__doc__" or not m.isidentifier():
            continue
        if isinstance(v, (classmethod, staticmethod)) or callable(v):
            out.append(fn(m, sig(v, True), v, "    ", modname + "." + name))
        elif inspect.isdatadescriptor(v):
            out.append("    @property\n" + fn(m, "(self)", v, "    ", modname + "." + name))
        else:
            out.append("    %s: %s\n" % (m, type(v).__name__))
    return "".join(out) if len(out) > 1 or doc(obj, "") else out[0] + "    ...\n"
def stub(mod, modname):
    imports = set()
    what = "module %s, whose classes are compiled" % modname if modname in INTROSPECTED else "compiled module " + modname
    out = ["# The names of the %s, written by kast from introspection.\n" % what]
    if isinstance(mod.__doc__, str):
        out.append(doc(mod, ""))
    exported = set(getattr(mod, "__all__", ())) if modname in INTROSPECTED else set()
    for name in sorted(dir(mod)):
        if keyword.iskeyword(name) or not name.isidentifier() or name in ("__builtins__", "__loader__", "__spec__"):
            continue
        if exported and name not in exported and not name.startswith("__"):
            continue  # a Python module's own helpers and imports: not its API
        try:
            obj = getattr(mod, name)
        except Exception:
            continue
        if inspect.ismodule(obj):
            out.append("import %s as %s\n" % (obj.__name__, name) if obj.__name__.isidentifier() else "")
        elif inspect.isclass(obj):
            out.append(cls(name, obj, modname))
        elif callable(obj):
            out.append(fn(name, sig(obj, False), obj, "", modname))
        else:
            t = type(obj)
            if modname + "." + name in ATTRIBUTES:
                out.append("%s: %s\n" % (name, ATTRIBUTES[modname + "." + name]))
            elif t.__module__ == modname and getattr(mod, t.__name__, None) is not t:
                # sys.version_info is an instance of a class sys does not
                # bind: the class is written under a private name, so
                # that version_info.major has a declaration.
                out.append(cls("_" + t.__name__, t, modname) + "%s: %s\n" % (name, "_" + t.__name__))
            elif t.__module__ in ("builtins", modname) or not t.__module__.isidentifier():
                out.append("%s: %s\n" % (name, t.__name__))
            else:
                imports.add(t.__module__)
                out.append("%s: %s.%s\n" % (name, t.__module__, t.__name__))
    for key, r in list(RETURNS.items()) + list(ATTRIBUTES.items()):
        # A return annotation naming another module's class needs it imported.
        other = r.split(".")[0] if "." in r else None
        if key.startswith(modname + ".") and other and other != modname:
            imports.add(other)
    return "".join(out[:1] + ["import %s\n" % m for m in sorted(imports)] + out[1:])
names = set(sys.argv[1:]) or set(sys.builtin_module_names)
# In a virtualenv platstdlib is the venv's own folder, which holds no
# lib-dynload: the interpreter's search path names the real one.
dynload = [p for p in sys.path if os.path.basename(p) == "lib-dynload"] or [os.path.join(sysconfig.get_paths()["platstdlib"], "lib-dynload")]
for p in [] if sys.argv[1:] else glob.glob(os.path.join(dynload[0], "*.so")) + glob.glob(os.path.join(dynload[0], "*.pyd")):
    names.add(os.path.basename(p).split(".")[0])
if not sys.argv[1:]:
    names |= INTROSPECTED
stubs = {}
for name in sorted(names):
    # Test modules, and ones whose import touches the terminal or a display.
    if not name.isidentifier() or name.startswith(("_test", "xx", "_xx")) or name in ("readline", "_tkinter", "_curses", "_curses_panel", "__main__"):
        continue
    try:
        stubs[name] = stub(importlib.import_module(name), name)
    except BaseException:
        pass
print(json.dumps(stubs))
`

// pythonBuiltins returns the folder of the interpreter's compiled-module
// stubs (builtins.pyi among them), writing them first if this version has
// none yet; "" when it cannot.
func pythonBuiltins(ctx context.Context, interp, version string) string {
	root, err := storage.CacheRoot()
	if err != nil || version == "" {
		return ""
	}
	dir := filepath.Join(root, "python-builtins", version+stubRevision)
	if fileExists(filepath.Join(dir, "builtins.pyi")) {
		return dir
	}
	stubs := runStubs(ctx, interp, 3*goEnvTimeout)
	if stubs["builtins"] == "" {
		// A slow or failing module import must not cost the built-in
		// names: ask for those alone.
		if stubs = runStubs(ctx, interp, goEnvTimeout, "builtins"); stubs["builtins"] == "" {
			return ""
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return ""
	}
	// Written aside and renamed whole: another process may be reading it.
	tmp, err := os.MkdirTemp(filepath.Dir(dir), ".stubs-*")
	if err != nil {
		return ""
	}
	for name, text := range stubs {
		if name == "" || strings.ContainsAny(name, `/\.`) {
			continue
		}
		if os.WriteFile(filepath.Join(tmp, name+".pyi"), []byte(text), 0o644) != nil {
			os.RemoveAll(tmp)
			return ""
		}
	}
	if err := os.Rename(tmp, dir); err != nil {
		os.RemoveAll(tmp)
		if !fileExists(filepath.Join(dir, "builtins.pyi")) { // not written by a racing process either
			return ""
		}
	}
	return dir
}

// runStubs runs the stubs' script for the named modules (all compiled
// ones when none are named) within timeout; nil when it fails.
func runStubs(ctx context.Context, interp string, timeout time.Duration, modules ...string) map[string]string {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, interp, append([]string{"-I", "-c", stubsScript}, modules...)...).Output()
	if err != nil {
		return nil
	}
	var stubs map[string]string
	if json.Unmarshal(out, &stubs) != nil {
		return nil
	}
	return stubs
}

// builtinsVersion is the version of the stubs' library: the interpreter's
// and the script's.
func builtinsVersion(version string) string { return version + stubRevision }
