package provider

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/responses"
	"github.com/openai/openai-go/v3/shared"

	"github.com/kast-dev/kast/agent"
)

// responsesAPI speaks the OpenAI Responses API, statelessly (store: false):
// the whole conversation is sent each time, as Kward does.
type responsesAPI struct {
	r      agent.Resolved
	opts   Options
	client openai.Client
}

func newResponses(r agent.Resolved, opts Options) *responsesAPI {
	return &responsesAPI{r: r, opts: opts, client: openai.NewClient(openAIOptions(r, opts)...)}
}

func (p *responsesAPI) Info() agent.ProviderInfo {
	return agent.ProviderInfo{Name: p.r.Name, Model: p.r.Model}
}

func (p *responsesAPI) Stream(ctx context.Context, req *agent.ModelRequest, sink agent.DeltaSink) (*agent.ModelResponse, error) {
	params := responses.ResponseNewParams{
		Model:        shared.ResponsesModel(p.r.Model),
		Instructions: openai.String(req.System),
		Input:        responses.ResponseNewParamsInputUnion{OfInputItemList: responsesInput(req.Messages)},
		Store:        openai.Bool(false),
	}
	if e := p.r.ReasoningEffort; e != "" {
		params.Reasoning = shared.ReasoningParam{Effort: shared.ReasoningEffort(e)}
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, responses.ToolUnionParam{OfFunction: &responses.FunctionToolParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: t.Parameters, Strict: openai.Bool(false),
		}})
	}
	watched, kick, stop := idleWatch(ctx, p.opts.IdleTimeout)
	defer stop()
	stream := p.client.Responses.NewStreaming(watched, params)
	defer stream.Close()

	var resp agent.ModelResponse
	var text, reasoning strings.Builder
	var calls []*agent.ToolCall
	byItem := map[string]*agent.ToolCall{}
	// current finds the call an arguments event belongs to: by item id when
	// the server sends one, else the latest call.
	current := func(itemID string) *agent.ToolCall {
		if c, ok := byItem[itemID]; ok {
			return c
		}
		if len(calls) > 0 {
			return calls[len(calls)-1]
		}
		return nil
	}
	for stream.Next() {
		kick()
		ev := stream.Current()
		switch ev.Type {
		case "response.output_text.delta":
			text.WriteString(ev.Delta)
			if sink.Text != nil {
				sink.Text(ev.Delta)
			}
		case "response.reasoning_summary_text.delta", "response.reasoning_text.delta":
			reasoning.WriteString(ev.Delta)
			if sink.Reasoning != nil {
				sink.Reasoning(ev.Delta)
			}
		case "response.output_item.added":
			if ev.Item.Type == "function_call" {
				c := &agent.ToolCall{ID: ev.Item.CallID, Name: ev.Item.Name}
				calls = append(calls, c)
				byItem[ev.Item.ID] = c
				if sink.ToolCall != nil {
					sink.ToolCall(agent.ToolCallDelta{Index: len(calls) - 1, ID: c.ID, Name: c.Name})
				}
			}
		case "response.function_call_arguments.delta":
			if c := current(ev.ItemID); c != nil {
				c.Arguments += ev.Delta
				if sink.ToolCall != nil {
					sink.ToolCall(agent.ToolCallDelta{Index: slices.Index(calls, c), Arguments: ev.Delta})
				}
			}
		case "response.function_call_arguments.done":
			if c := current(ev.ItemID); c != nil && ev.Arguments != "" {
				c.Arguments = ev.Arguments
			}
		case "response.completed":
			u := ev.Response.Usage
			resp.Usage = agent.Usage{InputTokens: u.InputTokens, OutputTokens: u.OutputTokens, TotalTokens: u.TotalTokens}
		case "response.failed", "error":
			msg := ev.Message
			if msg == "" {
				msg = ev.Response.Error.Message
			}
			return nil, &agent.ProviderError{Provider: p.r.Name, Transient: true, Message: Redact(msg, p.r.APIKey)}
		}
	}
	if err := stream.Err(); err != nil {
		var apiErr *openai.Error
		var status *statusError
		if errors.As(err, &apiErr) {
			status = &statusError{status: apiErr.StatusCode, body: apiErr.RawJSON()}
		}
		return nil, classify(ctx, watched, p.r.Name, p.r.APIKey, status, err, p.opts.IdleTimeout)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	resp.Text, resp.Reasoning = text.String(), reasoning.String()
	for _, c := range calls {
		resp.ToolCalls = append(resp.ToolCalls, *c)
	}
	return &resp, nil
}

func responsesInput(msgs []agent.Message) responses.ResponseInputParam {
	var items responses.ResponseInputParam
	// A function_call left without its output would make the API reject the request.
	for _, m := range agent.RepairToolCalls(msgs) {
		switch m.Role {
		case agent.RoleUser:
			content := responses.ResponseInputMessageContentListParam{
				{OfInputText: &responses.ResponseInputTextParam{Text: m.Text}},
			}
			for _, img := range m.Images {
				content = append(content, responses.ResponseInputContentUnionParam{OfInputImage: &responses.ResponseInputImageParam{
					ImageURL: openai.String(dataURL(img)), Detail: responses.ResponseInputImageDetailAuto,
				}})
			}
			items = append(items, responses.ResponseInputItemParamOfMessage(content, responses.EasyInputMessageRoleUser))
		case agent.RoleTool:
			out := responses.ResponseInputItemParamOfFunctionCallOutput(m.Text)
			out.OfFunctionCallOutput.CallID = openai.String(m.ToolCallID)
			items = append(items, out)
		default: // assistant, and summaries, which the model sees as assistant text
			if m.Text != "" {
				items = append(items, responses.ResponseInputItemParamOfMessage(m.Text, responses.EasyInputMessageRoleAssistant))
			}
			for _, tc := range m.ToolCalls {
				items = append(items, responses.ResponseInputItemParamOfFunctionCall(argumentsOrEmpty(tc.Arguments), tc.ID, tc.Name))
			}
		}
	}
	return items
}
