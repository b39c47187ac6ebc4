package acp

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

type initializeParams struct {
	ProtocolVersion    json.RawMessage `json:"protocolVersion"`
	ClientCapabilities struct {
		FS struct {
			ReadTextFile  bool `json:"readTextFile"`
			WriteTextFile bool `json:"writeTextFile"`
		} `json:"fs"`
		Terminal bool `json:"terminal"`
	} `json:"clientCapabilities"`
}

// initialize records what the client offers and answers kast's version of
// the protocol (the client's when it asks for an older one is not possible:
// 1 is the first), capabilities, API-key auth methods and agentInfo.
func (s *Service) initialize(ctx context.Context, p *initializeParams) (map[string]any, error) {
	if p.ProtocolVersion == nil {
		return nil, server.InvalidParams("protocolVersion is required")
	}
	var version int64
	if err := json.Unmarshal(p.ProtocolVersion, &version); err != nil {
		return nil, server.InvalidParams("protocolVersion must be an integer, not %s", p.ProtocolVersion)
	}
	_, cs, err := s.stateOf(ctx)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	cs.caps = clientCaps{readTextFile: p.ClientCapabilities.FS.ReadTextFile, writeTextFile: p.ClientCapabilities.FS.WriteTextFile,
		terminal: p.ClientCapabilities.Terminal}
	cs.mu.Unlock()
	return map[string]any{
		"protocolVersion":   ProtocolVersion,
		"agentCapabilities": s.capabilities(),
		"authMethods":       s.authMethods(),
		"agentInfo":         map[string]any{"name": "kast", "title": "kast", "version": s.opts.Version},
	}, nil
}

// authMethods are the providers whose API key kast reads: one method each,
// "api-key:<provider>".
func (s *Service) authMethods() []map[string]any {
	names := map[string]string{}
	for name, pc := range agent.BuiltinProviders {
		if pc.KeyEnv != "" {
			names[name] = pc.KeyEnv
		}
	}
	if cfg, err := s.mgr.Config(); err == nil {
		for name, pc := range cfg.Providers {
			if _, ok := names[name]; !ok && !pc.NoKey {
				names[name] = pc.KeyEnv
			}
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Strings(sorted)
	methods := []map[string]any{}
	for _, n := range sorted {
		where := "its apiKey in kast's config"
		if env := names[n]; env != "" {
			where = env + " or " + where
		}
		methods = append(methods, map[string]any{"id": "api-key:" + n, "name": n + " API key",
			"description": "Use " + n + " with the key in " + where})
	}
	return methods
}

type authenticateParams struct {
	MethodID string `json:"methodId"`
}

// authenticate picks the provider whose key the method names for the
// connection's next sessions; a provider without a usable key is ACP's
// auth_required error, saying how to set it.
func (s *Service) authenticate(ctx context.Context, p *authenticateParams) (map[string]any, error) {
	name, ok := strings.CutPrefix(p.MethodID, "api-key:")
	if !ok || name == "" {
		return nil, server.InvalidParams("unknown auth method %q; initialize lists them", p.MethodID)
	}
	if _, err := s.mgr.ProviderWith(name, ""); err != nil {
		return nil, server.Error(CodeAuthRequired, "AUTH_REQUIRED", err.Error(), map[string]any{"methodId": p.MethodID})
	}
	_, cs, err := s.stateOf(ctx)
	if err != nil {
		return nil, err
	}
	cs.mu.Lock()
	cs.provider = name
	cs.mu.Unlock()
	return map[string]any{}, nil
}
