package provider

import (
	"context"
	"encoding/json"
	"errors"
	"sort"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
	"github.com/openai/openai-go/v3/shared"

	"github.com/kast-dev/kast/agent"
)

// chat speaks OpenAI-compatible chat completions: OpenAI, OpenRouter,
// Moonshot, Ollama, vLLM, llama.cpp server.
type chat struct {
	r      agent.Resolved
	opts   Options
	client openai.Client
}

func newChat(r agent.Resolved, opts Options) *chat {
	return &chat{r: r, opts: opts, client: openai.NewClient(openAIOptions(r, opts)...)}
}

// openAIOptions configures the SDK client: our own retries (they emit
// modelRetry events), the configured endpoint and key.
func openAIOptions(r agent.Resolved, opts Options) []option.RequestOption {
	o := []option.RequestOption{
		option.WithBaseURL(r.BaseURL),
		option.WithHTTPClient(opts.HTTPClient),
		option.WithMaxRetries(0),
	}
	if r.APIKey != "" {
		o = append(o, option.WithAPIKey(r.APIKey))
	} else {
		o = append(o, option.WithAPIKey("none"))
	}
	return o
}

func (c *chat) Info() agent.ProviderInfo { return agent.ProviderInfo{Name: c.r.Name, Model: c.r.Model} }

func (c *chat) Stream(ctx context.Context, req *agent.ModelRequest, sink agent.DeltaSink) (*agent.ModelResponse, error) {
	params := openai.ChatCompletionNewParams{
		Model:         shared.ChatModel(c.r.Model),
		Messages:      chatMessages(req),
		StreamOptions: openai.ChatCompletionStreamOptionsParam{IncludeUsage: openai.Bool(true)},
	}
	if e := c.r.ReasoningEffort; e != "" {
		params.ReasoningEffort = shared.ReasoningEffort(e) // set by reasoning/set or the config
	}
	for _, t := range req.Tools {
		params.Tools = append(params.Tools, openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: t.Name, Description: openai.String(t.Description), Parameters: t.Parameters,
		}))
	}
	watched, kick, stop := idleWatch(ctx, c.opts.IdleTimeout)
	defer stop()
	stream := c.client.Chat.Completions.NewStreaming(watched, params)
	defer stream.Close()

	var resp agent.ModelResponse
	var text, reasoning strings.Builder
	calls := map[int64]*agent.ToolCall{}
	for stream.Next() {
		kick()
		chunk := stream.Current()
		if chunk.JSON.Usage.Valid() && chunk.Usage.TotalTokens > 0 {
			resp.Usage = agent.Usage{InputTokens: chunk.Usage.PromptTokens, OutputTokens: chunk.Usage.CompletionTokens, TotalTokens: chunk.Usage.TotalTokens}
		}
		for _, choice := range chunk.Choices {
			d := choice.Delta
			if r := reasoningDelta(d); r != "" {
				reasoning.WriteString(r)
				if sink.Reasoning != nil {
					sink.Reasoning(r)
				}
			}
			if d.Content != "" {
				text.WriteString(d.Content)
				if sink.Text != nil {
					sink.Text(d.Content)
				}
			}
			for _, tc := range d.ToolCalls {
				call := calls[tc.Index]
				if call == nil {
					call = &agent.ToolCall{}
					calls[tc.Index] = call
				}
				if tc.ID != "" {
					call.ID = tc.ID
				}
				call.Name += tc.Function.Name
				call.Arguments += tc.Function.Arguments
				if sink.ToolCall != nil {
					sink.ToolCall(agent.ToolCallDelta{Index: int(tc.Index), ID: tc.ID, Name: tc.Function.Name, Arguments: tc.Function.Arguments})
				}
			}
		}
	}
	if err := stream.Err(); err != nil {
		var apiErr *openai.Error
		var status *statusError
		if errors.As(err, &apiErr) {
			status = &statusError{status: apiErr.StatusCode, body: apiErr.RawJSON()}
			if status.body == "" {
				status.body = apiErr.Message
			}
		}
		return nil, classify(ctx, watched, c.r.Name, c.r.APIKey, status, err, c.opts.IdleTimeout)
	}
	if ctx.Err() != nil {
		return nil, ctx.Err()
	}
	resp.Text, resp.Reasoning = text.String(), reasoning.String()
	indexes := make([]int64, 0, len(calls))
	for i := range calls {
		indexes = append(indexes, i)
	}
	sort.Slice(indexes, func(a, b int) bool { return indexes[a] < indexes[b] })
	for _, i := range indexes {
		resp.ToolCalls = append(resp.ToolCalls, *calls[i])
	}
	return &resp, nil
}

// reasoningDelta reads the reasoning text OpenAI-compatible servers add to
// deltas outside the official schema (reasoning_content, reasoning).
func reasoningDelta(d openai.ChatCompletionChunkChoiceDelta) string {
	for _, key := range []string{"reasoning_content", "reasoning"} {
		if f, ok := d.JSON.ExtraFields[key]; ok {
			var s string
			if json.Unmarshal([]byte(f.Raw()), &s) == nil && s != "" {
				return s
			}
		}
	}
	return ""
}

func chatMessages(req *agent.ModelRequest) []openai.ChatCompletionMessageParamUnion {
	msgs := []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(req.System)}
	// A call left without a result would make the API reject the request.
	for _, m := range agent.RepairToolCalls(req.Messages) {
		switch m.Role {
		case agent.RoleUser:
			if len(m.Images) == 0 {
				msgs = append(msgs, openai.UserMessage(m.Text))
				continue
			}
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(m.Text)}
			for _, img := range m.Images {
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{URL: dataURL(img)}))
			}
			msgs = append(msgs, openai.UserMessage(parts))
		case agent.RoleTool:
			msgs = append(msgs, openai.ToolMessage(m.Text, m.ToolCallID))
		case agent.RoleAssistant:
			a := openai.ChatCompletionAssistantMessageParam{}
			if m.Text != "" || len(m.ToolCalls) == 0 {
				a.Content.OfString = openai.String(m.Text)
			}
			for _, tc := range m.ToolCalls {
				a.ToolCalls = append(a.ToolCalls, openai.ChatCompletionMessageToolCallUnionParam{
					OfFunction: &openai.ChatCompletionMessageFunctionToolCallParam{
						ID:       tc.ID,
						Function: openai.ChatCompletionMessageFunctionToolCallFunctionParam{Name: tc.Name, Arguments: argumentsOrEmpty(tc.Arguments)},
					},
				})
			}
			msgs = append(msgs, openai.ChatCompletionMessageParamUnion{OfAssistant: &a})
		default: // compaction and branch summaries reach the model as assistant text
			msgs = append(msgs, openai.AssistantMessage(m.Text))
		}
	}
	return msgs
}

func argumentsOrEmpty(args string) string {
	if strings.TrimSpace(args) == "" {
		return "{}"
	}
	return args
}
