package libraries

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/kast-dev/kast/storage"
)

// Python's built-in names (str, len, ValueError) have no source: the
// interpreter is asked for them once per version and they are written as a
// stub, builtins.pyi, in the cache, which is then indexed like any library
// (the way editors without typeshed generate skeletons of compiled modules).

// builtinsScript prints a stub of the builtins module: classes with their
// methods, functions, with signatures where the interpreter knows them and
// their docstrings.
const builtinsScript = `
import builtins, inspect, keyword
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
def fn(name, sg, obj, indent):
    d = doc(obj, indent + "    ")
    return indent + "def %s%s:" % (name, sg) + ("\n" + d if d else " ...\n")
out = ["# The built-in names of this interpreter, written by kast from introspection.\n"]
for name in sorted(dir(builtins)):
    if keyword.iskeyword(name):
        continue
    obj = getattr(builtins, name)
    if inspect.isclass(obj):
        bases = ", ".join(b.__name__ for b in obj.__bases__ if b is not object and b.__module__ == "builtins")
        out.append("class %s(%s):\n" % (name, bases) + doc(obj, "    "))
        body = []
        for m, v in sorted(vars(obj).items()):
            if m == "__doc__" or not m.isidentifier():
                continue
            if isinstance(v, (classmethod, staticmethod)) or callable(v):
                body.append(fn(m, sig(v, True), v, "    "))
            elif inspect.isdatadescriptor(v):
                body.append("    @property\n" + fn(m, "(self)", v, "    "))
        out.extend(body or ["    ...\n"])
    elif callable(obj):
        out.append(fn(name, sig(obj, False), obj, ""))
    else:
        out.append("%s: %s\n" % (name, type(obj).__name__))
print("".join(out), end="")
`

// pythonBuiltins returns the folder holding the interpreter's builtins.pyi,
// writing it first if this version has none yet; "" when it cannot.
func pythonBuiltins(ctx context.Context, interp, version string) string {
	root, err := storage.CacheRoot()
	if err != nil || version == "" {
		return ""
	}
	dir := filepath.Join(root, "python-builtins", version)
	stub := filepath.Join(dir, "builtins.pyi")
	if _, err := os.Stat(stub); err == nil {
		return dir
	}
	ctx, cancel := context.WithTimeout(ctx, goEnvTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, interp, "-I", "-c", builtinsScript).Output()
	if err != nil || len(out) == 0 {
		return ""
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return ""
	}
	// Written aside and renamed: another process may be reading it.
	tmp, err := os.CreateTemp(dir, "builtins-*.tmp")
	if err != nil {
		return ""
	}
	_, werr := tmp.Write(out)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), stub) != nil {
		os.Remove(tmp.Name())
		return ""
	}
	return dir
}
