package search

import (
	"context"
	"path"
	"strings"
)

// Scope narrows a search to files under some paths and matching globs. It is
// applied to candidates before ranking, so top-k is taken within the scope.
type Scope struct {
	Paths   []string // absolute files or directories; empty means the whole root
	Include []string // globs on the relative path or the base name; empty means all
	Exclude []string
	Filter  Filter // which files walking a directory finds (ck's options)
	// allowed, once resolved, is the set of relative paths the filter lets
	// through; nil means every indexed file.
	allowed map[string]bool
}

func (f Filter) isZero() bool {
	return !f.NoIgnore && !f.SkipHidden && !f.Ckignore && f.Excludes == nil
}

// resolve lists the files a filtered scope lets through, for the ranked
// searches, which rank what the index holds.
func (e *Engine) resolve(ctx context.Context, sc Scope) (Scope, error) {
	if sc.Filter.isZero() {
		return sc, nil
	}
	l, err := e.List(ctx, sc)
	if err != nil {
		return sc, err
	}
	sc.allowed = make(map[string]bool, len(l.Files))
	for _, f := range l.Files {
		sc.allowed[e.rel(f)] = true
	}
	return sc, nil
}

func (e *Engine) inScope(sc Scope, rel string) bool {
	if sc.allowed != nil {
		return sc.allowed[rel]
	}
	if len(sc.Paths) > 0 {
		ok := false
		for _, p := range sc.Paths {
			r := e.rel(p)
			if r == "." || r == rel || strings.HasPrefix(rel, r+"/") {
				ok = true
				break
			}
		}
		if !ok {
			return false
		}
	}
	return e.inGlobs(sc, rel)
}

func (e *Engine) inGlobs(sc Scope, rel string) bool {
	if len(sc.Include) > 0 && !matchAny(sc.Include, rel) {
		return false
	}
	return !matchAny(sc.Exclude, rel)
}

func matchAny(globs []string, rel string) bool {
	base := path.Base(rel)
	for _, g := range globs {
		g = strings.TrimSuffix(g, "/")
		if ok, _ := path.Match(g, rel); ok {
			return true
		}
		if ok, _ := path.Match(g, base); ok {
			return true
		}
		// A directory name or path excludes everything below it.
		if !strings.ContainsAny(g, "*?[") && (strings.HasPrefix(rel, g+"/") || strings.Contains(rel, "/"+g+"/")) {
			return true
		}
	}
	return false
}
