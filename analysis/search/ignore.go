package search

import (
	"bufio"
	"io"
	"path"
	"strings"
)

// ignoreRules is one .gitignore-syntax file (.gitignore, .ignore,
// .ckignore, or ck's default .ckignore text) anchored at base, a
// slash-separated directory below the walk root ("" at the root).
//
// storage/scan has a matcher for the index's walk, but unexported and
// without the files ck honours; this one serves the search-time walk, whose
// options (no-ignore, hidden, .ckignore) the index walk does not have.
// Rules: # comments, ! negation, trailing / for directories, a / at the
// start or inside anchors to base, * ? [..] within a segment, ** across
// segments, last matching line wins, deeper files win over shallower ones.
type ignoreRules struct {
	base  string
	rules []ignoreRule
}

type ignoreRule struct {
	segs    []string
	anchor  bool
	dirOnly bool
	negate  bool
}

func parseRules(base string, r io.Reader) *ignoreRules {
	f := &ignoreRules{base: base}
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := strings.TrimRight(strings.TrimSuffix(sc.Text(), "\r"), " ")
		if line == "" || line[0] == '#' {
			continue
		}
		var rule ignoreRule
		if line[0] == '!' {
			rule.negate, line = true, line[1:]
		} else if line[0] == '\\' && len(line) > 1 {
			line = line[1:]
		}
		if strings.HasSuffix(line, "/") {
			rule.dirOnly, line = true, strings.TrimRight(line, "/")
		}
		if line == "" {
			continue
		}
		rule.anchor = strings.Contains(line, "/")
		line = strings.ReplaceAll(strings.TrimPrefix(line, "/"), "[!", "[^")
		rule.segs = strings.Split(line, "/")
		f.rules = append(f.rules, rule)
	}
	return f
}

func (r *ignoreRule) match(rel string, dir bool) bool {
	if r.dirOnly && !dir {
		return false
	}
	if !r.anchor {
		ok, _ := path.Match(r.segs[0], path.Base(rel))
		return ok
	}
	return matchSegs(r.segs, strings.Split(rel, "/"))
}

func matchSegs(pat, name []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return len(name) > 0
			}
			for skip := 0; skip <= len(name); skip++ {
				if matchSegs(pat[1:], name[skip:]) {
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

// ignoredBy applies a stack of rule files, shallowest first.
func ignoredBy(stack []*ignoreRules, rel string, dir bool) bool {
	for i := len(stack) - 1; i >= 0; i-- {
		f := stack[i]
		sub := rel
		if f.base != "" {
			var ok bool
			if sub, ok = strings.CutPrefix(rel, f.base+"/"); !ok {
				continue
			}
		}
		for j := len(f.rules) - 1; j >= 0; j-- {
			if r := &f.rules[j]; r.match(sub, dir) {
				return !r.negate
			}
		}
	}
	return false
}
