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

func askUser(ctx context.Context, env *agent.ToolEnv, raw json.RawMessage) agent.ToolResult {
	var args struct {
		Questions []agent.Question `json:"questions"`
	}
	if err := decode(raw, &args); err != nil {
		return errorf("%v", err)
	}
	if err := agent.ValidateQuestions(args.Questions); err != nil {
		return errorf("%v", err)
	}
	if env.Ask == nil {
		return errorf("this client cannot answer questions; decide without asking")
	}
	answers, err := env.Ask(ctx, args.Questions)
	if err != nil {
		return cancelled()
	}
	if len(answers) == 0 {
		// A dismissal (or a client that cannot show questions): the model
		// must go on without, not wait or read an empty answer as one.
		return agent.ToolResult{Content: "The user dismissed the questions without answering; decide without asking."}
	}
	var b strings.Builder
	for _, a := range answers {
		fmt.Fprintf(&b, "%s: %s\n", a.Question, a.Answer)
	}
	return agent.ToolResult{Content: b.String()}
}
