//go:build !linux

package agent

// Without /proc there is no safe way to tell a recorded group from one
// that reuses its id, so nothing is recorded or reaped here; the shell
// tool still kills its group on cancel and timeout.

func (p *Procs) track(pgid int, id string) func() { return func() {} }

func (p *Procs) reap() []int { return nil }
