package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/kast-dev/kast/agent"
)

var askUserSpec = agent.ToolSpec{
	Name:        AskUserQuestion,
	Description: "Ask the user 1 to 4 multiple-choice questions (2 to 4 options each) and wait for the answers.",
	Parameters: object(map[string]any{
		"questions": map[string]any{
			"type": "array", "minItems": 1, "maxItems": 4,
			"items": object(map[string]any{
				"question": str("The question."),
				"header":   str("A very short label for the question."),
				"options": map[string]any{
					"type": "array", "minItems": 2, "maxItems": 4,
					"items": object(map[string]any{
						"label":       str("The option's text."),
						"description": str("What choosing it means."),
					}, "label", "description"),
				},
			}, "question", "header", "options"),
		},
	}, "questions"),
}

// ValidateQuestions checks the limits clients rely on: 1–4 questions with
// 2–4 options each, single choice, no previews.
func ValidateQuestions(qs []agent.Question) error {
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
	}
	return nil
}

func askUser(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Questions []agent.Question `json:"questions"`
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	if err := ValidateQuestions(args.Questions); err != nil {
		return errorf("%v", err)
	}
	if env.Ask == nil {
		return errorf("this client cannot answer questions; decide without asking")
	}
	answers, err := env.Ask(ctx, args.Questions)
	if err != nil {
		return agent.ToolResult{Content: "Cancelled.", IsError: true}
	}
	var b strings.Builder
	for _, a := range answers {
		fmt.Fprintf(&b, "%s: %s\n", a.Question, a.Answer)
	}
	return agent.ToolResult{Content: b.String()}
}
