package agent

import "context"

// ToolSpec describes a tool to the model; Parameters is a JSON Schema object.
type ToolSpec struct {
	Name        string
	Description string
	Parameters  map[string]any
}

// ToolResult is what running a tool produced. Content goes back to the model.
type ToolResult struct {
	Content          string
	IsError          bool
	Diff             string   // unified diff of an edit or write
	ChangedFiles     []string // workspace-relative paths written
	FirstChangedLine int      // 1-based; 0 when unknown
}

// Toolset runs the tools a turn offers to the model.
type Toolset interface {
	Specs() []ToolSpec
	// Run executes one call. Failures are results with IsError set, never
	// Go errors: the model sees them and may recover.
	Run(ctx context.Context, env *ToolEnv, call ToolCall) ToolResult
}

// ToolEnv is what tools may use of their session.
type ToolEnv struct {
	Workspace string
	// Reads remembers files read in this session, for read-before-write.
	Reads *ReadSet
	// Ask puts questions to the user and waits for the answers; nil when the
	// client cannot answer questions.
	Ask func(ctx context.Context, questions []Question) ([]Answer, error)
}

// Question is one question for the user with its options.
type Question struct {
	Question    string           `json:"question"`
	Header      string           `json:"header"`
	Options     []QuestionOption `json:"options"`
	MultiSelect bool             `json:"multiSelect,omitempty"`
}

// QuestionOption is one answer the user may pick.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description"`
}

// Answer is the user's answer to one question.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}
