package agent

import "context"

// Commands a tool runs (the shell tool's) live in their own process group
// and die with kast: the group's leader gets SIGKILL when kast dies
// (Pdeathsig, on Linux), and every running group has a record in Procs.Dir
// so the next kast to start kills what the dead one left running (children
// the leader's death does not reach: background jobs, pipelines).

// CommandIDEnv names the environment variable a tracked command's processes
// inherit; its value, recorded with the group, tells a group kast started
// from an unrelated one that came to reuse its id.
const CommandIDEnv = "KAST_COMMAND_ID"

// Procs records the process groups of running commands, one file per group
// in Dir (<data>/running/<pgid>). Each file is locked by the kast that runs
// the command, so a record whose lock is free is one a dead kast left.
type Procs struct {
	Dir string
}

// Track records the running process group pgid, whose processes have
// CommandIDEnv=id in their environment; release removes the record once
// the command has ended. A nil Procs records nothing. A record that cannot
// be written is no reason to refuse the command: the group still dies with
// its leader when kast does.
func (p *Procs) Track(pgid int, id string) (release func()) {
	if p == nil || p.Dir == "" {
		return func() {}
	}
	return p.track(pgid, id)
}

// Reap kills the process groups whose records a dead kast left in Dir and
// removes those records; groups of a kast still running are left alone.
// It returns the ids of the groups it killed.
func (p *Procs) Reap() []int {
	if p == nil || p.Dir == "" {
		return nil
	}
	return p.reap()
}

// procTools gives the runtime's tools its process records.
type procTools struct {
	Toolset
	procs *Procs
}

func (t procTools) Run(ctx context.Context, env *ToolEnv, call ToolCall) ToolResult {
	e := *env
	e.Procs = t.procs
	return t.Toolset.Run(ctx, &e, call)
}
