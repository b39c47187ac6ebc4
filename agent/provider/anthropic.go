package provider

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/kast-dev/kast/agent"
)

// anthropicMaxTokens bounds one response; Messages requires a limit.
const anthropicMaxTokens = 8192

// anthropicAPI speaks Anthropic Messages.
type anthropicAPI struct {
	r      agent.Resolved
	opts   Options
	client anthropic.Client
}

func newAnthropic(r agent.Resolved, opts Options) *anthropicAPI {
	client := anthropic.NewClient(
		option.WithBaseURL(r.BaseURL),
		option.WithAPIKey(r.APIKey),
		option.WithHTTPClient(opts.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &anthropicAPI{r: r, opts: opts, client: client}
}

func (p *anthropicAPI) Info() agent.ProviderInfo {
	return agent.ProviderInfo{Name: p.r.Name, Model: p.r.Model}
}

func (p *anthropicAPI) Stream(ctx context.Context, req *agent.ModelRequest, sink agent.DeltaSink) (*agent.ModelResponse, error) {
	params := anthropic.MessageNewParams{
		Model:     anthropic.Model(p.r.Model),
		MaxTokens: anthropicMaxTokens,
		System:    []anthropic.TextBlockParam{{Text: req.System}},
		Messages:  anthropicMessages(req.Messages),
	}
	for _, t := range req.Tools {
		schema := anthropic.ToolInputSchemaParam{Properties: t.Parameters["properties"]}
		if req, ok := t.Parameters["required"].([]string); ok {
			schema.Required = req
		}
		params.Tools = append(params.Tools, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name: t.Name, Description: anthropic.String(t.Description), InputSchema: schema,
		}})
	}
	watched, kick, stop := idleWatch(ctx, p.opts.IdleTimeout)
	defer stop()
	stream := p.client.Messages.NewStreaming(watched, params)
	defer stream.Close()

	var resp agent.ModelResponse
	var text, reasoning strings.Builder
	calls := map[int64]*agent.ToolCall{}
	var order []int64
	for stream.Next() {
		kick()
		ev := stream.Current()
		switch ev.Type {
		case "message_start":
			resp.Usage.InputTokens = ev.Message.Usage.InputTokens + ev.Message.Usage.CacheReadInputTokens + ev.Message.Usage.CacheCreationInputTokens
		case "content_block_start":
			if ev.ContentBlock.Type == "tool_use" {
				calls[ev.Index] = &agent.ToolCall{ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name}
				order = append(order, ev.Index)
				if sink.ToolCall != nil {
					sink.ToolCall(agent.ToolCallDelta{Index: len(order) - 1, ID: ev.ContentBlock.ID, Name: ev.ContentBlock.Name})
				}
			}
		case "content_block_delta":
			switch ev.Delta.Type {
			case "text_delta":
				text.WriteString(ev.Delta.Text)
				if sink.Text != nil {
					sink.Text(ev.Delta.Text)
				}
			case "thinking_delta":
				reasoning.WriteString(ev.Delta.Thinking)
				if sink.Reasoning != nil {
					sink.Reasoning(ev.Delta.Thinking)
				}
			case "input_json_delta":
				if c := calls[ev.Index]; c != nil {
					c.Arguments += ev.Delta.PartialJSON
					if sink.ToolCall != nil {
						sink.ToolCall(agent.ToolCallDelta{Index: slices.Index(order, ev.Index), Arguments: ev.Delta.PartialJSON})
					}
				}
			}
		case "message_delta":
			resp.Usage.OutputTokens = ev.Usage.OutputTokens
		case "error":
			return nil, &agent.ProviderError{Provider: p.r.Name, Transient: true, Message: Redact(errorMessage(ev.RawJSON()), p.r.APIKey)}
		}
	}
	if err := stream.Err(); err != nil {
		var apiErr *anthropic.Error
		var status *statusError
		if errors.As(err, &apiErr) {
			status = &statusError{status: apiErr.StatusCode, body: apiErr.RawJSON()}
		}
		return nil, classify(ctx, watched, p.r.Name, p.r.APIKey, status, err, p.opts.IdleTimeout)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	resp.Usage.TotalTokens = resp.Usage.InputTokens + resp.Usage.OutputTokens
	resp.Text, resp.Reasoning = text.String(), reasoning.String()
	for _, i := range order {
		resp.ToolCalls = append(resp.ToolCalls, *calls[i])
	}
	return &resp, nil
}

// anthropicMessages maps the conversation to Messages' alternating turns:
// tool results travel in user messages, consecutive same-role messages merge.
func anthropicMessages(msgs []agent.Message) []anthropic.MessageParam {
	var out []anthropic.MessageParam
	add := func(role anthropic.MessageParamRole, blocks ...anthropic.ContentBlockParamUnion) {
		if len(blocks) == 0 {
			return
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			return
		}
		out = append(out, anthropic.MessageParam{Role: role, Content: blocks})
	}
	// A tool_use left without a tool_result would make the API reject the request.
	for _, m := range agent.RepairToolCalls(msgs) {
		switch m.Role {
		case agent.RoleUser:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, img := range m.Images {
				blocks = append(blocks, anthropic.NewImageBlockBase64(img.MimeType, img.Data))
			}
			add(anthropic.MessageParamRoleUser, blocks...)
		case agent.RoleTool:
			add(anthropic.MessageParamRoleUser, anthropic.NewToolResultBlock(m.ToolCallID, m.Text, strings.HasPrefix(m.Text, "Error:")))
		default:
			var blocks []anthropic.ContentBlockParamUnion
			if m.Text != "" {
				blocks = append(blocks, anthropic.NewTextBlock(m.Text))
			}
			for _, tc := range m.ToolCalls {
				var input any = map[string]any{}
				_ = json.Unmarshal([]byte(argumentsOrEmpty(tc.Arguments)), &input)
				blocks = append(blocks, anthropic.NewToolUseBlock(tc.ID, input, tc.Name))
			}
			add(anthropic.MessageParamRoleAssistant, blocks...)
		}
	}
	return out
}
