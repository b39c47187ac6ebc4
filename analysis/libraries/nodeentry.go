package libraries

import (
	"encoding/json"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A node package's entry points: the files an import of the package (or of
// a subpath of it) names, as TypeScript finds them: package.json's
// "types"/"typings", else "exports" (conditions types, import, default,
// require, in that order; subpaths and "*" patterns), else "main"; a
// JavaScript file stands for the declaration file beside it. A package
// without declarations of its own may have them in @types/<name>.

// nodeEntries reads the entry points of the package at dir, as lines of
// "subpath\tfile" ("." is the package itself; file is relative to dir and
// may hold one "*").
func nodeEntries(dir string, pkg map[string]json.RawMessage) string {
	return nodeEntriesOf(dir, pkg, false)
}

// nodeEntriesOf is nodeEntries, with every export condition's target when
// every is set (the workspace's own packages, read from their sources).
func nodeEntriesOf(dir string, pkg map[string]json.RawMessage, every bool) string {
	var lines []string
	add := func(sub, file string) {
		if file != "" && !strings.Contains(file, "..") {
			lines = append(lines, sub+"\t"+strings.TrimPrefix(path.Clean("/"+file), "/"))
		}
	}
	str := func(field string) string {
		var s string
		_ = json.Unmarshal(pkg[field], &s)
		return s
	}
	if t := cmpOr(str("types"), str("typings")); t != "" {
		add(".", t)
	}
	if raw, ok := pkg["exports"]; ok {
		var subs map[string]json.RawMessage
		if json.Unmarshal(raw, &subs) == nil && anyKeyIsSubpath(subs) {
			// Subpaths the map leaves out are not importable.
			lines = append(lines, exportsMap+"\t")
			for sub, target := range subs {
				if strings.HasPrefix(sub, ".") {
					for _, t := range exportTargets(target, every) {
						add(strings.TrimPrefix(strings.TrimPrefix(sub, "."), "/"), t)
					}
				}
			}
		} else {
			for _, t := range exportTargets(raw, every) {
				add(".", t)
			}
		}
	}
	if m := str("main"); m != "" {
		add(".", m)
	}
	add(".", "index.d.ts")
	// "." lines keep their order (the first that exists wins); the
	// subpaths' order does not matter.
	return strings.Join(fixDot(lines), "\n")
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func fixDot(lines []string) []string {
	for i, l := range lines {
		if strings.HasPrefix(l, "\t") { // "." trimmed to "" by the subpath form
			lines[i] = "." + l
		}
	}
	return lines
}

func anyKeyIsSubpath(m map[string]json.RawMessage) bool {
	for k := range m {
		if strings.HasPrefix(k, ".") {
			return true
		}
	}
	return false
}

// exportTarget picks a file from an "exports" value: a string, an array
// (the first that resolves), or conditions.
func exportTarget(raw json.RawMessage, depth int) string {
	if depth > 8 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		for _, x := range list {
			if t := exportTarget(x, depth+1); t != "" {
				return t
			}
		}
		return ""
	}
	var conds map[string]json.RawMessage
	if json.Unmarshal(raw, &conds) != nil {
		return ""
	}
	for _, c := range []string{"types", "import", "default", "require", "node"} {
		if x, ok := conds[c]; ok {
			if t := exportTarget(x, depth+1); t != "" {
				return t
			}
		}
	}
	return ""
}

// exportTargets lists an "exports" value's files, best first: the usual
// conditions' pick, then with every, each other condition's (a source checkout has
// no built "types" file, but a custom condition such as zod's
// "@zod/source", which its tsconfig's customConditions names, leads to
// the sources). Only those that exist are used.
func exportTargets(raw json.RawMessage, every bool) []string {
	out := []string{exportTarget(raw, 0)}
	var conds map[string]json.RawMessage
	if every && json.Unmarshal(raw, &conds) == nil {
		for _, c := range slices.Sorted(maps.Keys(conds)) {
			out = append(out, exportTarget(conds[c], 1))
		}
	}
	return slices.Compact(slices.DeleteFunc(out, func(s string) bool { return s == "" }))
}

// exportsMap is the line of entries that says package.json has an exports
// map of subpaths.
const exportsMap = "!exports"

// NodeEntryFiles lists the files an import of subpath ("" for the package
// itself) of this node package names, best first: declaration files where
// the package has them. nil when the package does not export the subpath.
func (l Library) NodeEntryFiles(subpath string) []string {
	if l.Lang != "node" {
		return nil
	}
	var out []string
	for _, line := range strings.Split(l.entries, "\n") {
		sub, file, ok := strings.Cut(line, "\t")
		if !ok {
			continue
		}
		if sub == "." {
			sub = ""
		}
		switch {
		case sub == subpath:
		case strings.Contains(sub, "*"):
			pre, post, _ := strings.Cut(sub, "*")
			if !strings.HasPrefix(subpath, pre) || !strings.HasSuffix(subpath, post) || len(subpath) < len(pre)+len(post) {
				continue
			}
			file = strings.Replace(file, "*", subpath[len(pre):len(subpath)-len(post)], 1)
		default:
			continue
		}
		out = append(out, l.entryFiles(file)...)
	}
	if len(out) == 0 && subpath != "" && !strings.Contains(l.entries, exportsMap+"\t") {
		// No exports map: a subpath is a file or folder of the package.
		out = l.entryFiles(subpath)
	}
	return slices.Compact(out)
}

// entryFiles maps an entry file to those that exist: its declaration file
// for JavaScript, the file itself, or an index in a folder.
func (l Library) entryFiles(file string) []string {
	base := filepath.Join(l.Dir, filepath.FromSlash(file))
	stem := base
	for _, ext := range []string{".d.ts", ".d.mts", ".d.cts", ".js", ".mjs", ".cjs", ".ts"} {
		if s, ok := strings.CutSuffix(base, ext); ok {
			stem = s
			break
		}
	}
	var cands []string
	if l.declarations {
		cands = []string{stem + ".d.ts", stem + ".d.mts", stem + ".d.cts", filepath.Join(base, "index.d.ts")}
	} else {
		cands = []string{base, stem + ".js", stem + ".mjs", stem + ".cjs", filepath.Join(base, "index.js")}
		if l.linked { // the workspace's own sources
			cands = append(cands, stem+".ts", stem+".tsx", filepath.Join(base, "index.ts"))
		}
	}
	var out []string
	for _, c := range cands {
		if fileExists(c) {
			out = append(out, c)
		}
	}
	return out
}

// TypesPackage names the @types package that describes a package.
func TypesPackage(name string) string {
	if scope, rest, ok := strings.Cut(strings.TrimPrefix(name, "@"), "/"); ok && strings.HasPrefix(name, "@") {
		return "@types/" + scope + "__" + rest
	}
	return "@types/" + name
}

// NodePackageName splits an import specifier into its package name and
// subpath: "@a/b/c" is "@a/b" and "c"; a relative or absolute one is "".
func NodePackageName(specifier string) (name, subpath string) {
	if specifier == "" || strings.HasPrefix(specifier, ".") || strings.HasPrefix(specifier, "/") || strings.Contains(specifier, ":") {
		return "", ""
	}
	parts := strings.SplitN(specifier, "/", 3)
	if strings.HasPrefix(specifier, "@") {
		if len(parts) < 2 {
			return "", ""
		}
		name = parts[0] + "/" + parts[1]
		if len(parts) == 3 {
			subpath = parts[2]
		}
		return name, subpath
	}
	name, subpath, _ = strings.Cut(specifier, "/")
	return name, subpath
}

// HasDeclarations reports whether a node package ships declaration files.
func (l Library) HasDeclarations() bool { return l.declarations }
