package workspace

import (
	"path"
	"path/filepath"
	"slices"

	"github.com/kast-dev/kast/analysis"
	"github.com/kast-dev/kast/analysis/resolve"
)

// The snapshot's name tables: the files, packages, definitions and
// references that the workspace indexes and the open files hold under a
// name.

// Files implements resolve.Workspace.
func (s *Snapshot) Files() []string {
	out := slices.Clone(s.openPaths)
	for _, w := range s.roots {
		out = append(out, w.view.Files()...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// FilesInPackage implements resolve.Workspace. Resolution asks it at every
// name it looks up in a package, so the answers are kept.
func (s *Snapshot) FilesInPackage(lang, pkg string) []string {
	key := [2]string{lang, pkg}
	s.mu.Lock()
	out, ok := s.pkgs[key]
	s.mu.Unlock()
	if ok {
		return out
	}
	out = slices.Clip(s.filesInPackage(lang, pkg))
	s.mu.Lock()
	s.pkgs[key] = out
	s.mu.Unlock()
	return out
}

func (s *Snapshot) filesInPackage(lang, pkg string) []string {
	var out []string
	for _, w := range s.roots {
		for _, p := range w.view.FilesInPackage(lang, pkg) {
			if _, shadowed := s.open[p]; !shadowed {
				out = append(out, p)
			}
		}
	}
	for _, p := range s.openPaths {
		if f := s.open[p].facts; f.Lang == lang && f.Package == pkg {
			out = append(out, p)
		}
	}
	return out
}

// GoDirsNamed implements resolve.GoImports.
func (s *Snapshot) GoDirsNamed(name string) []string {
	var out []string
	for _, w := range s.roots {
		out = append(out, w.view.goDirsNamed(name)...)
	}
	for _, p := range s.openPaths {
		if d := filepath.Dir(p); s.open[p].facts.Lang == "go" && resolve.GoDirName(filepath.Base(d)) == name {
			out = append(out, d)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// GoMethodFiles lists the files declaring Go methods on a type named
// receiver, in any package: the indexed ones by their file rows, and the
// open documents by their current text.
func (s *Snapshot) GoMethodFiles(receiver string) []string {
	out := appendFromIndexes(s, nil, true, func(v *view) []string { return v.goMethodFiles(receiver) },
		func(p string) string { return p })
	for _, p := range s.openPaths {
		f := s.open[p].facts
		if f.Lang != "go" {
			continue
		}
		for _, d := range f.Defs {
			if d.Container == analysis.None && d.Receiver != "" && resolve.BaseTypeName(d.Receiver) == receiver {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// GoImportsNamed implements resolve.GoImports.
func (s *Snapshot) GoImportsNamed(name string) []resolve.GoImport {
	out := appendFromIndexes(s, nil, false, func(v *view) []resolve.GoImport { return v.goImportsNamed(name) },
		func(imp resolve.GoImport) string { return imp.File })
	for _, p := range s.openPaths {
		if f := s.open[p].facts; f.Lang == "go" {
			for _, imp := range f.Imports {
				if path.Base(imp.Path) == name {
					out = append(out, resolve.GoImport{File: p, Path: imp.Path})
				}
			}
		}
	}
	return out
}

// DefsNamed implements resolve.Workspace.
func (s *Snapshot) DefsNamed(name string) []resolve.DefEntry {
	out := appendFromIndexes(s, nil, true, func(v *view) []resolve.DefEntry { return v.DefsNamed(name) },
		func(e resolve.DefEntry) string { return e.Path })
	for _, p := range s.openPaths {
		for _, i := range s.open[p].defs[name] {
			out = append(out, resolve.EntryOf(s.open[p].facts, i))
		}
	}
	return out
}

// RefsNamed implements resolve.Workspace. The last answer is kept: finding
// references asks for the same name twice, once to read the files ahead.
func (s *Snapshot) RefsNamed(name string) []resolve.RefID {
	if s.shared != nil {
		return s.shared.snapshot().RefsNamed(name)
	}
	s.mu.Lock()
	last, ids := s.lastRefs, s.lastRefIDs
	s.mu.Unlock()
	if last == name && ids != nil {
		return ids
	}
	ids = s.refsNamed(name)
	s.mu.Lock()
	s.lastRefs, s.lastRefIDs = name, slices.Clip(ids)
	s.mu.Unlock()
	return ids
}

func (s *Snapshot) refsNamed(name string) []resolve.RefID {
	out := appendFromIndexes(s, []resolve.RefID{}, false, func(v *view) []resolve.RefID { return v.RefsNamed(name) },
		func(id resolve.RefID) string { return id.Path })
	for _, p := range s.openPaths {
		for _, i := range s.open[p].refs[name] {
			out = append(out, resolve.RefID{Path: p, Index: i})
		}
	}
	return out
}

// HintedRefsNamed implements resolve.RefHinter: refsNamed with hints, an
// open document's worked out from its current facts.
func (s *Snapshot) HintedRefsNamed(name string) []resolve.HintedRef {
	if len(s.roots) == 1 && s.roots[0].Lib == nil && len(s.open) == 0 {
		// One root and nothing open: its index's list, shared as the view
		// keeps it (clipped), not copied (eleven thousand for
		// unsafe.Pointer, copied twice a query).
		return s.roots[0].view.hintedRefsNamed(name)
	}
	out := appendFromIndexes(s, nil, false, func(v *view) []resolve.HintedRef { return v.hintedRefsNamed(name) },
		func(ref resolve.HintedRef) string { return ref.Path })
	for _, p := range s.openPaths {
		o := s.open[p]
		if len(o.refs[name]) == 0 {
			continue
		}
		hints := o.hints()
		for _, i := range o.refs[name] {
			ref := resolve.HintedRef{RefID: resolve.RefID{Path: p, Index: i}, Role: o.facts.Refs[i].Role,
				Span: o.facts.Refs[i].Span, Spanned: true}
			if int(i) < len(hints) {
				ref.Hint = hints[i]
				if k := resolve.HintImport(ref.Hint); k >= 0 {
					ref.Import = o.facts.Imports[k].Path
				}
			}
			out = append(out, ref)
		}
	}
	return out
}

// SupertypesNamed implements resolve.Workspace.
func (s *Snapshot) SupertypesNamed(name string) []resolve.SupertypeID {
	out := appendFromIndexes(s, nil, true, func(v *view) []resolve.SupertypeID { return v.SupertypesNamed(name) },
		func(id resolve.SupertypeID) string { return id.Path })
	for _, p := range s.openPaths {
		for _, i := range s.open[p].supers[name] {
			out = append(out, resolve.SupertypeID{Path: p, Index: i})
		}
	}
	return out
}

// fromIndex reports whether w's index is the source of truth for path: the
// file is not open, and no nested root owns it (so it is counted once).
// ASCII reports whether the snapshot serves path from an index whose version
// of it is ASCII, so that its UTF-16 columns are its byte columns.
func (s *Snapshot) ASCII(path string) bool {
	w := owner(s.roots, path)
	return w != nil && s.fromIndex(w, path) && w.view.indexedFile(path).ascii
}

// ASCIILine reports whether line (from 0) of path, as indexed and not
// open, is known to hold ASCII only: its byte columns are UTF-16's too.
func (s *Snapshot) ASCIILine(path string, line int) bool {
	w := owner(s.roots, path)
	if w == nil || !s.fromIndex(w, path) {
		return false
	}
	v := w.view.indexedFile(path)
	if v.ascii {
		return true
	}
	_, wide := slices.BinarySearch(v.wide, int32(line))
	return v.wide != nil && !wide
}

// appendFromIndexes appends what list gives of each root's index, the
// libraries' too when asked (references stay workspace-scoped), leaving
// out the files an open document shadows or another root owns.
func appendFromIndexes[T any](s *Snapshot, out []T, libraries bool, list func(*view) []T, path func(T) string) []T {
	for _, w := range s.roots {
		if w.Lib != nil && !libraries {
			continue
		}
		xs := list(w.view)
		out = slices.Grow(out, len(xs))
		for _, x := range xs {
			if s.fromIndex(w, path(x)) {
				out = append(out, x)
			}
		}
	}
	return out
}

func (s *Snapshot) fromIndex(w *Workspace, path string) bool {
	if _, shadowed := s.open[path]; shadowed {
		return false
	}
	return owner(s.roots, path) == w
}

// FilePackage implements resolve.FilePackager: an open document's package
// clause, else the indexed file's.
func (s *Snapshot) FilePackage(path string) (string, bool) {
	if o, ok := s.open[path]; ok {
		if o.facts == nil {
			return "", false
		}
		return o.facts.Package, true
	}
	if w := owner(s.roots, path); w != nil && w.view != nil {
		v := w.view.indexedFile(path)
		return v.pkg, v.hash != ""
	}
	return "", false
}

// FileSize implements resolve.FileSizer: an open document's length, else
// the indexed content's; 0 when unknown.
func (s *Snapshot) FileSize(path string) int64 {
	if text, ok := s.texts[path]; ok {
		return int64(len(text))
	}
	if w := owner(s.roots, path); w != nil && w.view != nil {
		return w.view.indexedFile(path).size
	}
	return 0
}
