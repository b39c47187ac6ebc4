package agent

import (
	"context"
	"fmt"
	"strings"
)

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
	// Failure says why a failed call failed, for clients that label
	// failures (kimi-cli's brief line); "" when the tool does not say.
	Failure Failure
}

// Failure is the machine-readable kind of a tool's failure.
type Failure string

const (
	FailureNotFound         Failure = "not_found"         // the named file or folder does not exist
	FailureNotAFile         Failure = "not_a_file"        // a folder where a file is needed
	FailurePathRefused      Failure = "path_refused"      // the confinement rule refused the path
	FailurePermission       Failure = "permission_denied" // the system refused access
	FailureInvalidArguments Failure = "invalid_arguments" // arguments that are not JSON or do not fit the schema
	FailureUnknownTool      Failure = "unknown_tool"      // no tool of that name
	FailureBinary           Failure = "binary_file"       // a file that is not text
	FailureNoMatch          Failure = "no_match"          // an edit's old text is not in the file
	FailureTimeout          Failure = "timeout"           // a command ran out of time
	FailureRejected         Failure = "rejected"          // the user declined the call
	FailureDenied           Failure = "denied"            // the approval policy refused the call (plan mode)
	FailureCancelled        Failure = "cancelled"         // the turn was cancelled before the call ended
)

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
	// Roots are further workspace roots (ACP's additional directories):
	// tools may name paths under them as under Workspace.
	Roots []string
	// Reads remembers files read in this session, for read-before-write.
	Reads *ReadSet
	// Ask puts questions to the user and waits for the answers; nil when the
	// client cannot answer questions.
	Ask func(ctx context.Context, questions []Question) ([]Answer, error)
	// Procs records the commands tools start, so a kast that dies does not
	// leave them running (see Procs); nil records nothing.
	Procs *Procs
	// Propose, when set, makes the file-changing tools propose their
	// changes and wait for a person's decision instead of writing (see
	// Proposal); nil writes at once.
	Propose ProposeFunc
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
	// Preview is decoded only to be rejected: clients show no previews.
	Preview string `json:"preview,omitempty"`
}

// ValidateQuestions checks the limits clients rely on: 1–4 questions with
// 2–4 labelled options each, single choice, no previews.
func ValidateQuestions(qs []Question) error {
	if len(qs) < 1 || len(qs) > 4 {
		return fmt.Errorf("ask 1 to 4 questions, not %d", len(qs))
	}
	for i, q := range qs {
		if strings.TrimSpace(q.Question) == "" {
			return fmt.Errorf("question %d is empty", i+1)
		}
		if len(q.Options) < 2 || len(q.Options) > 4 {
			return fmt.Errorf("question %d needs 2 to 4 options, not %d", i+1, len(q.Options))
		}
		if q.MultiSelect {
			return fmt.Errorf("question %d: multiSelect is not supported", i+1)
		}
		for j, o := range q.Options {
			if strings.TrimSpace(o.Label) == "" {
				return fmt.Errorf("question %d, option %d has no label", i+1, j+1)
			}
			if o.Preview != "" {
				return fmt.Errorf("question %d, option %d: previews are not supported", i+1, j+1)
			}
		}
	}
	return nil
}

// Answer is the user's answer to one question.
type Answer struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
}

// ExternalTools are tools a client runs itself (kimi-cli's external
// tools), offered to the model besides the session's tools. Their calls go
// to Run and never ask for approval: the client owns them.
type ExternalTools struct {
	Specs []ToolSpec
	// Run runs one call on the client; cancelling ctx (the turn's end)
	// must end the wait.
	Run func(ctx context.Context, call ToolCall) ToolResult
	// Kind, when set, classifies the tools for the turn's approval policy,
	// so they ask (or are refused) as the session's own tools do; nil
	// leaves them ungated, for clients that ask the user themselves.
	Kind func(name string) ToolKind
}

// Has reports whether name is one of the external tools.
func (e *ExternalTools) Has(name string) bool {
	if e == nil {
		return false
	}
	for _, s := range e.Specs {
		if s.Name == name {
			return true
		}
	}
	return false
}
