package agent

import "time"

// EventKind names what happened in a turn. Projections map kinds to their
// protocol's event names.
type EventKind string

// The kinds of turn events, in roughly the order a turn produces them.
const (
	EventQueued         EventKind = "queued"
	EventStarted        EventKind = "started"
	EventReasoningDelta EventKind = "reasoningDelta"
	EventTextDelta      EventKind = "textDelta"
	EventMessage        EventKind = "message"
	EventRetry          EventKind = "retry"
	EventToolCall       EventKind = "toolCall"
	EventToolResult     EventKind = "toolResult"
	// EventSteered: input sent while the turn ran joined it, between model
	// steps (after the previous step's tool results).
	EventSteered         EventKind = "steered"
	EventAnswer          EventKind = "answer"
	EventCancelRequested EventKind = "cancelRequested"
	EventError           EventKind = "error"
	EventFinished        EventKind = "finished"
)

// TurnStatus is a turn's lifecycle state.
type TurnStatus string

// Turn states; the last three are terminal.
const (
	StatusQueued    TurnStatus = "queued"
	StatusRunning   TurnStatus = "running"
	StatusCompleted TurnStatus = "completed"
	StatusFailed    TurnStatus = "failed"
	StatusCanceled  TurnStatus = "canceled"
)

// Terminal reports whether no further event can follow this status.
func (s TurnStatus) Terminal() bool {
	return s == StatusCompleted || s == StatusFailed || s == StatusCanceled
}

// Event is one thing that happened in a turn. Seq is per turn, from 1, strictly
// increasing; which payload fields are set depends on Kind.
type Event struct {
	Seq       int64
	Time      time.Time
	SessionID string
	TurnID    string
	Kind      EventKind

	Status  TurnStatus // queued, started, finished
	Delta   string     // reasoningDelta, textDelta
	Text    string     // started and steered (the input as typed), answer (the final text)
	Message *Message   // message: the stored assistant message
	Retry   *RetryInfo // retry
	Tool    *ToolEvent // toolCall, toolResult
	Err     *TurnError // error, finished (failed)
	Steered time.Time  // steered: when the input arrived (Time is when it joined)
}

// RetryInfo describes a transient model failure about to be retried.
type RetryInfo struct {
	Provider    string
	Model       string
	Attempt     int // the attempt about to start, from 2
	MaxAttempts int
	Delay       time.Duration
	Error       string
}

// ToolEvent is a tool call and, for toolResult, its outcome.
type ToolEvent struct {
	Call   ToolCall
	Result *ToolResult
}

// TurnError is a sanitized failure as clients see it.
type TurnError struct {
	Message string
	Code    string
}

func (e *TurnError) Error() string { return e.Message }
