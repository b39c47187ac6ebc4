package scan

import (
	"bufio"
	"io"
	"path"
	"strings"
)

// A small gitignore matcher rather than a dependency: the maintained options
// (go-git's plumbing/format/gitignore) pull in go-git and go-billy, and
// sabhiram/go-gitignore is unmaintained and mishandles "**" and negation.
// The rules implemented are those of gitignore(5):
//   - blank lines and lines starting with # are skipped; \# and \! escape;
//     trailing spaces are dropped unless escaped
//   - a leading ! re-includes what an earlier pattern excluded
//   - a trailing / matches directories only
//   - a / at the start or in the middle anchors the pattern to the directory of
//     its .gitignore; otherwise it matches a name at any depth below it
//   - * ? [...] match within one path segment; "**/" matches any number of
//     directories, and a trailing "/**" everything inside
//   - the last matching line wins, and deeper .gitignore files win over
//     shallower ones; an excluded directory is not entered, so nothing below
//     it can be re-included (the walker enforces this by skipping it)

type pattern struct {
	segments []string
	anchored bool
	dirOnly  bool
	negate   bool
}

// IgnoreFile holds the patterns of one .gitignore-syntax file (.gitignore,
// .ignore, .ckignore), relative to base (the slash-separated directory of
// the file below the root, "" at the root). Walks other than Walk (ck's
// search-time walk) stack them with ParseIgnore and ask Ignored.
type IgnoreFile struct {
	base     string
	patterns []pattern
}

// ParseIgnore reads one ignore file whose directory is base.
func ParseIgnore(base string, r io.Reader) *IgnoreFile {
	f := &IgnoreFile{base: base}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if p, ok := parsePattern(sc.Text()); ok {
			f.patterns = append(f.patterns, p)
		}
	}
	return f
}

func parsePattern(line string) (pattern, bool) {
	line = strings.TrimSuffix(line, "\r")
	for strings.HasSuffix(line, " ") && !strings.HasSuffix(line, `\ `) {
		line = line[:len(line)-1]
	}
	if line == "" || line[0] == '#' {
		return pattern{}, false
	}
	var p pattern
	if line[0] == '!' {
		p.negate, line = true, line[1:]
	} else if strings.HasPrefix(line, `\!`) || strings.HasPrefix(line, `\#`) {
		line = line[1:]
	}
	if strings.HasSuffix(line, "/") {
		p.dirOnly, line = true, strings.TrimRight(line, "/")
	}
	if line == "" {
		return pattern{}, false
	}
	p.anchored = strings.Contains(line, "/")
	line = strings.TrimPrefix(line, "/")
	// Go's path.Match spells a negated class [^...]; gitignore also allows [!...].
	line = strings.ReplaceAll(line, "[!", "[^")
	p.segments = strings.Split(line, "/")
	return p, true
}

// match reports whether rel (slash-separated, relative to the pattern's
// .gitignore directory) matches.
func (p *pattern) match(rel string, isDir bool) bool {
	if p.dirOnly && !isDir {
		return false
	}
	if !p.anchored {
		ok, _ := path.Match(p.segments[0], path.Base(rel))
		return ok
	}
	return matchSegments(p.segments, strings.Split(rel, "/"))
}

func matchSegments(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0 // "a/**" matches inside a, not a itself
			}
			for skip := 0; skip <= len(name); skip++ {
				if matchSegments(pat[1:], name[skip:]) {
					return true
				}
			}
			return false
		}
		if len(name) == 0 {
			return false
		}
		if ok, _ := path.Match(pat[0], name[0]); !ok {
			return false
		}
		pat, name = pat[1:], name[1:]
	}
	return len(name) == 0
}

// Ignored applies a stack of ignore files (shallowest first) to rel, a
// slash-separated path below the root.
func Ignored(stack []*IgnoreFile, rel string, isDir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		f := stack[i]
		sub := rel
		if f.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, f.base+"/"); !ok {
				continue
			}
		}
		for j := len(f.patterns) - 1; j >= 0; j-- {
			if p := &f.patterns[j]; p.match(sub, isDir) {
				return !p.negate
			}
		}
	}
	return false
}
