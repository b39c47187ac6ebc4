// Package confine holds the one rule for every path a client or a model
// names: the path must be absolute, and its real location — every symlink
// resolved, the links of the part that does not exist yet included — must lie
// under the real location of a workspace root. A lexical check is not enough:
// a symlinked folder inside the workspace would carry a write outside it.
//
// Check is a check-then-use: between Check and the caller's open, a process
// that can write in the workspace could swap a folder for a link (TOCTOU).
// That is accepted here. Whoever can do that already runs as the user with
// write access to the workspace, and kast's own shell tool runs arbitrary
// commands there, so the race gives nothing a local writer lacks; what the
// rule stops is a client or a model naming a path that the file system
// turns into one outside. Callers shrink the window by writing to the real
// path Check returns (a rename in the real folder never follows a link).
// O_NOFOLLOW would guard only the last element and openat walks need a
// per-platform open in every caller; neither is worth it for that.
package confine

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// Access is what the caller will do with the path.
type Access int

const (
	// Read reads a file or lists a folder; the returned path is the real one.
	Read Access = iota
	// Write replaces an existing file's content. When the path is a link
	// that stays inside, the returned path is its target: writing there
	// keeps the link a link.
	Write
	// Create makes a new file; the part that does not exist yet is appended
	// to the real location of the part that does.
	Create
	// Delete removes the file the path names. A final link is not followed
	// for the returned path (the link itself is removed), but it must still
	// point inside, since the caller reads through it first.
	Delete
)

func (a Access) String() string {
	switch a {
	case Write:
		return "write"
	case Create:
		return "create"
	case Delete:
		return "delete"
	}
	return "read"
}

// Reason says which part of the rule refused a path; the values are the
// machine-readable codes protocols put in their error details.
type Reason string

const (
	NotAbsolute      Reason = "NOT_ABSOLUTE"      // a relative or empty path
	OutsideWorkspace Reason = "OUTSIDE_WORKSPACE" // the path itself is under no root
	SymlinkEscape    Reason = "SYMLINK_ESCAPE"    // a link inside a root leads out of every root
	DotDotAfterLink  Reason = "DOTDOT_AFTER_LINK" // a ".." steps back over a link: the OS would not go where the text says
	SymlinkLoop      Reason = "SYMLINK_LOOP"      // too many links to resolve
)

// Error is a refused path.
type Error struct {
	Reason Reason
	Path   string   // the path as named
	Access Access   // what the caller meant to do
	Link   string   // the offending link, for SYMLINK_ESCAPE and DOTDOT_AFTER_LINK
	Target string   // what Link points to, as stored in the link
	Roots  []string // the workspace roots, as given
}

func (e *Error) Error() string {
	switch e.Reason {
	case NotAbsolute:
		return fmt.Sprintf("confinement rule %s: %q is not an absolute path", e.Reason, e.Path)
	case OutsideWorkspace:
		return fmt.Sprintf("confinement rule %s: %s is outside the workspace %s", e.Reason, e.Path, strings.Join(e.Roots, ", "))
	case SymlinkEscape:
		return fmt.Sprintf("confinement rule %s: %s leaves the workspace through the symlink %s -> %s; refused to %s it",
			e.Reason, e.Path, e.Link, e.Target, e.Access)
	case DotDotAfterLink:
		return fmt.Sprintf("confinement rule %s: in %s, \"..\" follows the symlink %s -> %s, so the path does not mean what it spells",
			e.Reason, e.Path, e.Link, e.Target)
	}
	return fmt.Sprintf("confinement rule %s: %s has too many levels of symlinks, starting at %s -> %s", e.Reason, e.Path, e.Link, e.Target)
}

// maxLinks bounds link resolution, as the kernel does.
const maxLinks = 40

// Rule is the rule over a set of roots, resolved once: a request that
// checks many paths makes one and reuses it.
type Rule struct {
	roots []string // as given
	given []string // cleaned; "" for a root that is not absolute
	real  []string // links resolved
}

// New resolves the roots. A root that is not absolute holds nothing
// (resolving it against "/" would make it hold everything).
func New(roots []string) *Rule {
	r := &Rule{roots: roots, given: make([]string, len(roots)), real: make([]string, len(roots))}
	for i, root := range roots {
		if !filepath.IsAbs(root) {
			continue
		}
		r.given[i] = filepath.Clean(root)
		r.real[i] = r.given[i]
		if real, _, why := resolve(r.given[i], true); why == "" {
			r.real[i] = real
		}
	}
	return r
}

// Roots returns the roots as given.
func (r *Rule) Roots() []string { return r.roots }

// Check is New(roots).Check(path, access).
func Check(roots []string, path string, access Access) (string, error) {
	return New(roots).Check(path, access)
}

// Check applies the rule to path for access and returns the path to use for
// the I/O: its real location (see Access), written under the root as the
// caller spelled it, so it matches the caller's index keys when a root
// itself lies below a link. path must be absolute; callers with
// workspace-relative input join it to the workspace first, without
// cleaning, so that a ".." after a link is still seen.
func (r *Rule) Check(path string, access Access) (string, error) {
	refuse := func(why Reason) *Error { return &Error{Reason: why, Path: path, Access: access, Roots: r.roots} }
	if path == "" || !filepath.IsAbs(path) {
		return "", refuse(NotAbsolute)
	}
	if link, target, ok := dotDotOverLink(path); ok {
		e := refuse(DotDotAfterLink)
		e.Link, e.Target = link, target
		return "", e
	}
	clean := filepath.Clean(path)
	resolved, hops, why := r.resolve(clean, true)
	if why != "" {
		e := refuse(why)
		e.Link, e.Target = culprit(r.real, hops)
		if why == SymlinkLoop {
			e.Link, e.Target = hops[0].link, hops[0].target
		}
		return "", e
	}
	if under(r.real, resolved) < 0 {
		if under(r.given, clean) < 0 && under(r.real, clean) < 0 {
			return "", refuse(OutsideWorkspace)
		}
		e := refuse(SymlinkEscape)
		e.Link, e.Target = culprit(r.real, hops)
		return "", e
	}
	if access == Delete && clean != filepath.Dir(clean) {
		parent, _, why := r.resolve(filepath.Dir(clean), true)
		if why != "" {
			return "", refuse(why)
		}
		resolved = filepath.Join(parent, filepath.Base(clean))
		if under(r.real, resolved) < 0 {
			return "", refuse(OutsideWorkspace)
		}
	}
	i := under(r.real, resolved)
	rel, err := filepath.Rel(r.real[i], resolved)
	if err != nil {
		return "", refuse(OutsideWorkspace)
	}
	return filepath.Join(r.given[i], rel), nil
}

// resolve is the package's resolve, started at the real root when p is
// spelled under a root: the root's own links are resolved already.
func (r *Rule) resolve(p string, followLast bool) (string, []hop, Reason) {
	if i := under(r.given, p); i >= 0 {
		return walk(r.real[i], p[len(r.given[i]):], followLast)
	}
	return resolve(p, followLast)
}

// under returns the index of the longest root holding p, or -1.
func under(roots []string, p string) int {
	best := -1
	for i, root := range roots {
		if within(root, p) && (best < 0 || len(root) > len(roots[best])) {
			best = i
		}
	}
	return best
}

func within(root, p string) bool {
	if root == "" {
		return false
	}
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// dotDotOverLink reports the first ".." of the raw path that steps back over
// a symlink: the kernel resolves the link first, a lexical Clean drops both,
// and the two disagree. It returns the link and its target.
func dotDotOverLink(raw string) (link, target string, ok bool) {
	if !strings.Contains(raw, "..") {
		return "", "", false
	}
	vol := filepath.VolumeName(raw)
	prefix := vol + string(filepath.Separator)
	for _, el := range strings.FieldsFunc(raw[len(vol):], isSeparator) {
		switch el {
		case ".":
		case "..":
			if fi, err := os.Lstat(prefix); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
				target, _ := os.Readlink(prefix)
				return prefix, target, true
			}
			prefix = filepath.Dir(prefix)
		default:
			prefix = filepath.Join(prefix, el)
		}
	}
	return "", "", false
}

// isSeparator reports whether r is a path separator. Only ASCII runes can
// be: uint8(r) of a rune such as U+022F would be '/', and walk would then
// cut a name at a rune it cannot step past, looping for ever.
func isSeparator(r rune) bool { return r < utf8.RuneSelf && os.IsPathSeparator(uint8(r)) }

// hop is one link followed while resolving.
type hop struct {
	link   string // where the link is, its folder resolved
	target string // the link's content
	lands  string // the target joined to the link's folder, cleaned
}

// culprit names the link to blame for an escape: the first one that lies
// inside a root and points outside every root, else the last one inside.
func culprit(roots []string, hops []hop) (string, string) {
	var last *hop
	for i, h := range hops {
		if under(roots, h.link) < 0 {
			continue
		}
		if under(roots, h.lands) < 0 {
			return h.link, h.target
		}
		last = &hops[i]
	}
	if last != nil {
		return last.link, last.target
	}
	if len(hops) > 0 {
		return hops[len(hops)-1].link, hops[len(hops)-1].target
	}
	return "", ""
}

// resolve returns the real location of the clean absolute path p: every
// link resolved, a dangling one too, and the part that does not exist
// appended as spelled. It fails with DOTDOT_AFTER_LINK when a link's target
// puts ".." after an element that does not exist (no real location to step
// back from), and with SYMLINK_LOOP past maxLinks. followLast false leaves a
// final link unresolved.
func resolve(p string, followLast bool) (string, []hop, Reason) {
	vol := filepath.VolumeName(p)
	return walk(vol+string(filepath.Separator), p[len(vol):], followLast)
}

// walk resolves rest from dest, a real folder.
func walk(dest, rest string, followLast bool) (string, []hop, Reason) {
	sep := string(filepath.Separator)
	var hops []hop
	missing := false
	for rest != "" {
		for rest != "" && os.IsPathSeparator(rest[0]) {
			rest = rest[1:]
		}
		if rest == "" {
			break
		}
		el := rest
		if i := strings.IndexFunc(rest, isSeparator); i >= 0 {
			el, rest = rest[:i], rest[i:]
		} else {
			rest = ""
		}
		switch el {
		case ".":
			continue
		case "..":
			if missing {
				return "", hops, DotDotAfterLink
			}
			dest = filepath.Dir(dest)
			continue
		}
		next := filepath.Join(dest, el)
		if missing || (rest == "" && !followLast) {
			dest = next
			continue
		}
		fi, err := os.Lstat(next)
		if err != nil {
			// What does not exist (or cannot be seen) is taken as spelled;
			// the caller's I/O reports it.
			missing = true
			dest = next
			continue
		}
		if fi.Mode()&fs.ModeSymlink == 0 {
			dest = next
			continue
		}
		if len(hops) == maxLinks {
			return "", hops, SymlinkLoop
		}
		target, err := os.Readlink(next)
		if err != nil {
			missing = true
			dest = next
			continue
		}
		lands := target
		if filepath.IsAbs(target) {
			dest = filepath.VolumeName(target) + sep
		} else {
			lands = filepath.Join(dest, target)
		}
		hops = append(hops, hop{link: next, target: target, lands: filepath.Clean(lands)})
		rest = target[len(filepath.VolumeName(target)):] + sep + rest
	}
	return dest, hops, ""
}
