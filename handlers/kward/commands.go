package kward

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Slash commands: prompt templates, skills and plugin commands, and the
// startup resources (AGENTS.md context) they come with.

// resources loads the workspace's and the user's resources; without a
// session the launch directory is the workspace.
func (k *Service) resources(sessionID string) (*agent.Resources, string, error) {
	return k.mgr.Resources(sessionID)
}

func (k *Service) commandsList(ctx context.Context, p sessionParams) (map[string]any, error) {
	res, _, err := k.resources(p.SessionID)
	if err != nil {
		return nil, err
	}
	commands := []map[string]any{}
	for _, pt := range res.Prompts {
		commands = append(commands, map[string]any{"name": pt.Name, "description": pt.Description, "source": "prompt",
			"location": pt.Source, "path": pt.Path, "executable": false})
	}
	for _, s := range res.Skills {
		commands = append(commands, map[string]any{"name": "skill:" + s.Name, "description": s.Description, "source": "skill",
			"location": s.Source, "path": s.Path, "executable": false})
	}
	for _, pl := range res.Plugins {
		commands = append(commands, map[string]any{"name": pl.Name, "description": pl.Description, "source": "plugin",
			"location": agent.SourceUser, "path": pl.Path, "executable": true})
	}
	return map[string]any{"commands": commands}, nil
}

type runParams struct {
	SessionID string `json:"sessionId"`
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

func (k *Service) commandsRun(ctx context.Context, p runParams) (map[string]any, error) {
	if p.SessionID == "" {
		return nil, required("sessionId")
	}
	res, workspace, err := k.resources(p.SessionID)
	if err != nil {
		return nil, err
	}
	name := strings.TrimPrefix(p.Name, "/")
	if name == "" {
		return nil, required("name")
	}
	plugin, ok := res.Plugin(name)
	if !ok {
		return nil, server.Error(jsonrpc2.InvalidParams, "COMMAND_NOT_FOUND",
			fmt.Sprintf("no executable command %q; commands/list shows the plugin commands", name), map[string]any{"name": name})
	}
	out, err := plugin.Run(ctx, workspace, p.Arguments)
	if err != nil {
		return nil, server.Error(jsonrpc2.InternalError, "COMMAND_FAILED", err.Error(), map[string]any{"name": name})
	}
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if out == "" {
		lines = []string{}
	}
	return map[string]any{"command": name, "output": lines, "result": out}, nil
}

func (k *Service) resourcesStartup(ctx context.Context, p sessionParams) (map[string]any, error) {
	res, _, err := k.resources(p.SessionID)
	if err != nil {
		return nil, err
	}
	ctxItems, skills, prompts, plugins := []map[string]any{}, []map[string]any{}, []map[string]any{}, []map[string]any{}
	for _, c := range res.Context {
		ctxItems = append(ctxItems, map[string]any{"name": "AGENTS.md", "path": c.Path, "source": c.Source})
	}
	for _, s := range res.Skills {
		skills = append(skills, map[string]any{"name": s.Name, "description": s.Description, "path": s.Path, "source": s.Source})
	}
	for _, pt := range res.Prompts {
		prompts = append(prompts, map[string]any{"name": pt.Name, "description": pt.Description, "path": pt.Path, "source": pt.Source})
	}
	for _, pl := range res.Plugins {
		plugins = append(plugins, map[string]any{"name": pl.Name, "description": pl.Description, "path": pl.Path, "source": agent.SourceUser})
	}
	return map[string]any{"sections": []map[string]any{
		{"name": "context", "items": ctxItems}, {"name": "skills", "items": skills},
		{"name": "prompts", "items": prompts}, {"name": "plugins", "items": plugins},
	}}, nil
}

func (k *Service) promptsList(ctx context.Context, _ struct{}) (map[string]any, error) {
	res, _, _ := k.resources("")
	prompts := []map[string]any{}
	for _, pt := range res.Prompts {
		prompts = append(prompts, map[string]any{"name": pt.Name, "description": pt.Description, "path": pt.Path, "source": pt.Source})
	}
	return map[string]any{"prompts": prompts}, nil
}

type expandParams struct {
	Command   string `json:"command"`
	Arguments string `json:"arguments"`
	SessionID string `json:"sessionId"`
}

func (k *Service) promptsExpand(ctx context.Context, p expandParams) (map[string]any, error) {
	name, args := strings.TrimPrefix(strings.TrimSpace(p.Command), "/"), p.Arguments
	if name == "" {
		return nil, required("command")
	}
	// "/plan fix it" in command carries its own arguments.
	if n, a, ok := strings.Cut(name, " "); ok && args == "" {
		name, args = n, strings.TrimSpace(a)
	}
	res, _, err := k.resources(p.SessionID)
	if err != nil {
		return nil, err
	}
	text, ok := res.Expand(name, args)
	if !ok {
		return nil, server.Error(jsonrpc2.InvalidParams, "PROMPT_NOT_FOUND",
			fmt.Sprintf("no prompt template %q; prompts/list shows the templates", name), map[string]any{"command": name})
	}
	return map[string]any{"command": name, "text": text}, nil
}
