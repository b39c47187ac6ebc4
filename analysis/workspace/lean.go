package workspace

import "slices"

// cacheBudget is what the facts cache may hold now.
func (v *view) cacheBudget() int64 { return leanBudget(v.lean.Load(), v.maxBytes) }

// leanShare is the share of their budgets that the query caches of facts
// keep while a full reference pass runs. The pass's own working set (its
// shared declarations, its resolvers, the index's memtables and block
// cache) is then live beside them, near the soft memory limit on the Go
// standard library: measured on its cold start, the collector took a
// quarter of the CPU, and with the query caches at a third definition,
// completion and reference p95 fell by a third to a half, peak RSS by
// some 25 MB.
const leanShare = 3

// factsBudget is base, the budget of a cache of facts over roots, or its
// leanShare while one of their full passes runs.
func factsBudget(roots []*Workspace, base int64) int64 {
	return leanBudget(slices.ContainsFunc(roots, func(w *Workspace) bool { return w.view.lean.Load() }), base)
}

// leanBudget is base, or its leanShare when lean.
func leanBudget(lean bool, base int64) int64 {
	if lean {
		return base / leanShare
	}
	return base
}
