package kimi

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kast-dev/kast/agent"
)

// The todo tool of kimi-cli's wire: the model keeps a checklist the client
// shows from the ToolResult's `todo` display block. The projection runs it
// (it is a view of the session, not work on the workspace) and keeps the
// list in state.json's `todos`, where kimi-cli keeps it.

const todoTool = "SetTodoList"

var todoStatuses = []string{"pending", "in_progress", "done"}

var todoSpec = agent.ToolSpec{Name: todoTool,
	Description: "Keep a todo list of the task's steps that the user sees as a checklist. Pass `todos`, the whole list, " +
		"to replace it (an empty list clears it); leave `todos` out to read the current list. Use it for tasks of " +
		"several steps, not for a single question or a small edit, and update it as steps start and finish.",
	Parameters: map[string]any{"type": "object", "additionalProperties": false, "properties": map[string]any{
		"todos": map[string]any{"type": []string{"array", "null"}, "description": "The whole updated list; omit it to read the list.",
			"items": map[string]any{"type": "object", "additionalProperties": false, "required": []string{"title", "status"},
				"properties": map[string]any{
					"title":  map[string]any{"type": "string", "minLength": 1, "description": "What the step is."},
					"status": map[string]any{"type": "string", "enum": todoStatuses},
				}}}}}}

type todoItem struct {
	Title  string `json:"title"`
	Status string `json:"status"`
}

// todoArgs reads a SetTodoList call: the new list, or nil to read the
// list. A malformed call is an error worded as kimi-cli words it.
func todoArgs(arguments string) ([]todoItem, error) {
	var args struct {
		Todos json.RawMessage `json:"todos"`
	}
	if strings.TrimSpace(arguments) != "" {
		if err := json.Unmarshal([]byte(arguments), &args); err != nil {
			return nil, fmt.Errorf("Error parsing JSON arguments: %v", err)
		}
	}
	if len(args.Todos) == 0 || bytes.Equal(args.Todos, []byte("null")) {
		return nil, nil
	}
	items := []todoItem{}
	if err := json.Unmarshal(args.Todos, &items); err != nil {
		return nil, fmt.Errorf("Error validating JSON arguments: todos must be a list of {title, status}: %v", err)
	}
	for i, it := range items {
		switch {
		case it.Title == "":
			return nil, fmt.Errorf("Error validating JSON arguments: todos[%d].title must not be empty", i)
		case !validStatus(it.Status):
			return nil, fmt.Errorf("Error validating JSON arguments: todos[%d].status must be one of pending, in_progress, done, not %q", i, it.Status)
		}
	}
	return items, nil
}

func validStatus(s string) bool {
	for _, v := range todoStatuses {
		if s == v {
			return true
		}
	}
	return false
}

// runTodo replaces or reads the session's todo list.
func (c *wireConn) runTodo(call agent.ToolCall) agent.ToolResult {
	items, err := todoArgs(call.Arguments)
	switch {
	case err != nil:
		return agent.ToolResult{Content: err.Error(), IsError: true}
	case items != nil:
		if err := c.store.setTodos(items); err != nil {
			return agent.ToolResult{Content: "Error running tool: saving the todo list: " + err.Error(), IsError: true}
		}
		return agent.ToolResult{Content: "Todo list updated"}
	}
	todos := c.store.todos()
	if len(todos) == 0 {
		return agent.ToolResult{Content: "Todo list is empty."}
	}
	lines := []string{"Current todo list:"}
	for _, t := range todos {
		lines = append(lines, "- ["+t.Status+"] "+t.Title)
	}
	return agent.ToolResult{Content: strings.Join(lines, "\n")}
}

// todoReturn is a SetTodoList result's message and display blocks as
// kimi-cli's tool returns them: the list as a `todo` block after an
// update, nothing after a read, a `brief` for a malformed call.
func todoReturn(call agent.ToolCall, r *agent.ToolResult) (string, []any) {
	if r.IsError {
		return r.Content, []any{map[string]any{"type": "brief", "text": "Invalid arguments"}}
	}
	items, _ := todoArgs(call.Arguments)
	if items == nil {
		return "", []any{}
	}
	return r.Content, []any{map[string]any{"type": "todo", "items": items}}
}

// wireTools are the tools a turn of the connection offers besides kast's:
// the todo tool and the client's external tools.
func (c *wireConn) wireTools() *agent.ExternalTools {
	c.mu.Lock()
	specs := append([]agent.ToolSpec{todoSpec}, c.external...)
	c.mu.Unlock()
	return &agent.ExternalTools{Specs: specs, Run: func(ctx context.Context, call agent.ToolCall) agent.ToolResult {
		if call.Name == todoTool {
			return c.runTodo(call)
		}
		return c.runExternal(ctx, call)
	}}
}
