package agent

import "fmt"

// Import creates a session file in the workspace root (see Workspace)
// holding history, a conversation another tool recorded (kimi-cli's
// context.jsonl, say), and opens it: its turns go on from that history.
// Tool calls left without a result get one (see RepairToolCalls).
func (m *Manager) Import(root string, history []Message) (*ManagedSession, error) {
	workspace, err := m.Workspace(root)
	if err != nil {
		return nil, err
	}
	log, err := m.opts.Store.Create(m.header(workspace))
	if err != nil {
		return nil, fmt.Errorf("creating the session file: %w", err)
	}
	var stored []Message
	for _, msg := range RepairToolCalls(history) {
		msg.ID = ""
		s, err := log.AppendMessage(msg)
		if err != nil {
			log.Close()
			return nil, fmt.Errorf("writing the imported conversation: %w", err)
		}
		stored = append(stored, s)
	}
	return m.open(log, workspace, stored, SessionConfig{}), nil
}
