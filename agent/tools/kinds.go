package tools

import "github.com/kast-dev/kast/agent"

// Kind classifies a tool for approval policies: the file writers are
// writes, the shell runs commands, everything else of the set only reads
// (files, listings, questions and the code-intelligence tools). A name the
// set does not offer is KindOther.
func (s *Set) Kind(name string) agent.ToolKind {
	switch name {
	case WriteFile, EditFile:
		return agent.KindWrite
	case RunShellCommand:
		return agent.KindCommand
	}
	for _, t := range s.tools() {
		if t.spec.Name == name {
			return agent.KindRead
		}
	}
	return agent.KindOther
}
