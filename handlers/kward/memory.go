package kward

import (
	"context"
	"fmt"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Memory methods over the engine's memory store.

func (k *Service) memoryConfig() (agent.MemoryConfig, error) {
	cfg, err := agent.LoadConfig(agent.ConfigPath(k.env))
	if err != nil {
		return agent.MemoryConfig{}, err
	}
	return cfg.Memory, nil
}

func (k *Service) memoryStatus(ctx context.Context, _ struct{}) (map[string]any, error) {
	mc, err := k.memoryConfig()
	if err != nil {
		return nil, err
	}
	return map[string]any{"enabled": mc.Enabled, "autoSummary": mc.AutoSummary, "paths": k.memory.Paths()}, nil
}

// memorySwitch sets memory.<key> in config; enabling memory creates its files.
func (k *Service) memorySwitch(key string, on bool) func(context.Context, struct{}) (map[string]any, error) {
	return func(ctx context.Context, _ struct{}) (map[string]any, error) {
		if key == "enabled" && on {
			if err := k.memory.Ensure(); err != nil {
				return nil, err
			}
		}
		if _, err := agent.UpdateConfig(agent.ConfigPath(k.env), map[string]any{"memory": map[string]any{key: on}}); err != nil {
			return nil, err
		}
		event := map[bool]string{true: "enable", false: "disable"}[on]
		if key == "autoSummary" {
			event = "auto_summary_" + event
		}
		if err := k.memory.Event(event, nil); err != nil {
			return nil, err
		}
		return map[string]any{key: on}, nil
	}
}

type memoryListParams struct {
	IncludeInactive bool `json:"includeInactive"`
}

func (k *Service) memoryList(ctx context.Context, p memoryListParams) (map[string]any, error) {
	core, soft, err := k.memory.List(p.IncludeInactive)
	if err != nil {
		return nil, err
	}
	return map[string]any{"core": core, "soft": soft}, nil
}

type memoryAddParams struct {
	Text  string   `json:"text"`
	Scope string   `json:"scope"`
	Tags  []string `json:"tags"`
}

func (k *Service) memoryAdd(core bool) func(context.Context, memoryAddParams) (map[string]any, error) {
	return func(ctx context.Context, p memoryAddParams) (map[string]any, error) {
		if p.Text == "" {
			return nil, required("text")
		}
		in := agent.MemoryInput{Text: p.Text, Scope: p.Scope, Tags: p.Tags}
		var mem any
		var err error
		if core {
			mem, err = k.memory.AddCore(in)
		} else {
			mem, err = k.memory.AddSoft(in, false)
		}
		if err != nil {
			return nil, err
		}
		return map[string]any{"memory": mem}, nil
	}
}

type memoryIDParams struct {
	ID string `json:"id"`
}

func (k *Service) memoryForget(ctx context.Context, p memoryIDParams) (map[string]any, error) {
	if p.ID == "" {
		return nil, required("id")
	}
	ok, err := k.memory.Forget(p.ID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, server.Error(jsonrpc2.InvalidParams, "MEMORY_NOT_FOUND", fmt.Sprintf("no active memory %q", p.ID), map[string]any{"id": p.ID})
	}
	return map[string]any{"forgotten": true}, nil
}

func (k *Service) memoryPromote(ctx context.Context, p memoryIDParams) (map[string]any, error) {
	if p.ID == "" {
		return nil, required("id")
	}
	c, err := k.memory.Promote(p.ID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"memory": c}, nil
}

func (k *Service) memoryInspect(ctx context.Context, _ struct{}) (map[string]any, error) {
	mc, err := k.memoryConfig()
	if err != nil {
		return nil, err
	}
	core, soft, err := k.memory.List(true)
	if err != nil {
		return nil, err
	}
	return map[string]any{"enabled": mc.Enabled, "autoSummary": mc.AutoSummary, "paths": k.memory.Paths(), "core": core, "soft": soft}, nil
}

type memoryWhyParams struct {
	SessionID string `json:"sessionId"`
}

func (k *Service) memoryWhy(ctx context.Context, p memoryWhyParams) (map[string]any, error) {
	mc, err := k.memoryConfig()
	if err != nil {
		return nil, err
	}
	r := k.mgr.LastRetrieval()
	if p.SessionID != "" {
		ms, err := k.session(p.SessionID)
		if err != nil {
			return nil, err
		}
		r = ms.Retrieval()
	}
	if r == nil {
		return map[string]any{"enabled": mc.Enabled, "scopes": []string{}, "core": []any{}, "soft": []any{}, "reasons": []any{},
			"message": "No memory has been retrieved yet."}, nil
	}
	return map[string]any{"enabled": mc.Enabled, "scopes": r.Scopes, "core": r.Core, "soft": r.Soft, "reasons": r.Reasons}, nil
}

func (k *Service) memorySummarize(ctx context.Context, p sessionParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	memories, err := k.mgr.SummarizeMemories(p.SessionID)
	if err != nil {
		return nil, err
	}
	return map[string]any{"memories": memories}, nil
}
