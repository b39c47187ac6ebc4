package kward

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/kast-dev/kast/agent"
	"github.com/kast-dev/kast/server"
)

// Models, runtime settings, config, auth and logging.

// Models.

// current resolves the configured provider and model.
func (k *Service) current() (agent.Resolved, *agent.Config, error) {
	cfg, err := k.mgr.Config()
	if err != nil {
		return agent.Resolved{}, nil, err
	}
	r, err := cfg.Resolve(k.env, agent.ConfigPath(k.env))
	if err != nil {
		return agent.Resolved{}, cfg, stateError("PROVIDER_NOT_CONFIGURED", err.Error(), nil)
	}
	return r, cfg, nil
}

func modelEntry(m agent.ModelInfo, effort string, current bool) map[string]any {
	var re any
	if m.Reasoning && effort != "" {
		re = effort
	}
	return map[string]any{"provider": m.Provider, "id": m.ID, "name": m.Name, "model": m.ID, "reasoning": m.Reasoning,
		"reasoningEffort": re, "contextWindow": m.ContextWindow, "current": current}
}

// describe returns what is known of a provider's model.
func describe(provider, model string) agent.ModelInfo {
	if m, ok := agent.LookupModel(provider, model); ok {
		return m
	}
	return agent.ModelInfo{Provider: provider, ID: model, Name: model}
}

func (k *Service) modelsList(ctx context.Context, _ struct{}) (map[string]any, error) {
	r, cfg, err := k.current()
	if cfg == nil {
		return nil, err
	}
	known := slices.Clone(agent.KnownModels)
	// OpenRouter entries prefer the models the configured key may use.
	orKey := firstNonEmptyString(k.env("OPENROUTER_API_KEY"), cfg.Providers["openrouter"].APIKey, cfg.Credentials["openrouter"])
	if orKey != "" {
		fetchCtx, cancel := context.WithTimeout(ctx, 10*time.Second)
		user, err := agent.FetchOpenRouter(fetchCtx, nil, k.openrouterBase(cfg)+"/models/user", orKey)
		cancel()
		if err == nil && len(user) > 0 {
			known = slices.DeleteFunc(known, func(m agent.ModelInfo) bool { return m.Provider == "openrouter" })
			known = append(known, user...)
		}
	}
	for name, pc := range cfg.Providers {
		if pc.Model != "" && !slices.ContainsFunc(known, func(m agent.ModelInfo) bool { return m.Provider == name && m.ID == pc.Model }) {
			known = append(known, describe(name, pc.Model))
		}
	}
	if r.Model != "" && !slices.ContainsFunc(known, func(m agent.ModelInfo) bool { return m.Provider == r.Name && m.ID == r.Model }) {
		known = append(known, describe(r.Name, r.Model))
	}
	models := []map[string]any{}
	for _, m := range known {
		models = append(models, modelEntry(m, cfg.ReasoningEffort, m.Provider == r.Name && m.ID == r.Model))
	}
	return map[string]any{"models": models}, nil
}

func (k *Service) openrouterBase(cfg *agent.Config) string {
	return strings.TrimSuffix(firstNonEmptyString(cfg.Providers["openrouter"].BaseURL, agent.BuiltinProviders["openrouter"].BaseURL), "/")
}

func (k *Service) openrouterCatalog(ctx context.Context, _ struct{}) (map[string]any, error) {
	cfg, err := k.mgr.Config()
	if err != nil {
		return nil, err
	}
	models, err := k.catalog.OpenRouter(ctx, k.openrouterBase(cfg))
	if err != nil {
		return nil, server.Error(jsonrpc2.InternalError, "CATALOG_UNAVAILABLE", err.Error(), nil)
	}
	out := []map[string]any{}
	for _, m := range models {
		out = append(out, modelEntry(m, "", false))
	}
	return map[string]any{"models": out}, nil
}

func (k *Service) currentPayload() (map[string]any, error) {
	r, cfg, err := k.current()
	if err != nil {
		return nil, err
	}
	return modelEntry(describe(r.Name, r.Model), cfg.ReasoningEffort, true), nil
}

func (k *Service) modelsCurrent(ctx context.Context, _ struct{}) (map[string]any, error) {
	return k.currentPayload()
}

type modelSetParams struct {
	Model    string `json:"model"`
	Provider string `json:"provider"`
}

func (k *Service) modelsSet(ctx context.Context, p modelSetParams) (map[string]any, error) {
	if strings.TrimSpace(p.Model) == "" {
		return nil, required("model")
	}
	if err := k.setModel(strings.ToLower(p.Provider), strings.TrimSpace(p.Model)); err != nil {
		return nil, err
	}
	// The payload is what turns will use, read back through the
	// environment and the config.
	res, err := k.currentPayload()
	if err != nil {
		return nil, err
	}
	if r, cfg, err := k.current(); err == nil && cfg.ReasoningEffort != "" && r.ReasoningEffort == "" {
		res["message"] = fmt.Sprintf("%s takes no reasoning effort: the configured effort %s is not sent to it.", r.Model, cfg.ReasoningEffort)
	}
	return res, nil
}

// overridden refuses a setting an environment variable overrides: stored,
// it would not be used, while the reply said it was.
func overridden(setting, env, value string) error {
	return stateError("SETTING_OVERRIDDEN",
		fmt.Sprintf("%s=%s overrides the %s setting, so it would not be used; unset %s to choose the %s here", env, value, setting, env, setting),
		map[string]any{"setting": setting, "env": env, "inForce": value})
}

// setModel stores provider (the current one when "") and model in config.
// A provider or model that KAST_PROVIDER or KAST_MODEL overrides is refused.
func (k *Service) setModel(provider, model string) error {
	cfg, err := k.mgr.Config()
	if err != nil {
		return err
	}
	if env := k.env("KAST_PROVIDER"); env != "" && provider != "" && provider != env {
		return overridden("provider", "KAST_PROVIDER", env)
	}
	if env := k.env("KAST_MODEL"); env != "" && model != env {
		return overridden("model", "KAST_MODEL", env)
	}
	if provider == "" {
		r, err := cfg.Resolve(k.env, agent.ConfigPath(k.env))
		provider = r.Name
		if err != nil && cfg.Provider != "" {
			provider = cfg.Provider
		}
	}
	if _, builtin := agent.BuiltinProviders[provider]; !builtin {
		if _, ok := cfg.Providers[provider]; !ok {
			return server.InvalidParams("unknown provider %q; configure it under \"providers\" first", provider)
		}
	}
	_, err = agent.UpdateConfig(agent.ConfigPath(k.env), map[string]any{"provider": provider, "model": model})
	return err
}

type reasoningParams struct {
	Effort string `json:"effort"`
}

func (k *Service) reasoningSet(ctx context.Context, p reasoningParams) (map[string]any, error) {
	if p.Effort == "" {
		return nil, required("effort")
	}
	if err := k.setEffort(p.Effort); err != nil {
		return nil, err
	}
	return k.currentPayload()
}

// setEffort stores a reasoning effort; off (or none) clears it. An effort
// for a model known to take none is refused: providers reject the request.
func (k *Service) setEffort(effort string) error {
	effort = strings.ToLower(strings.TrimSpace(effort))
	var value any = effort
	switch {
	case effort == "off" || effort == "none":
		value = nil
	case !slices.Contains(agent.ReasoningEfforts, effort):
		return server.InvalidParams("unsupported reasoning effort %q; want off, %s", effort, strings.Join(agent.ReasoningEfforts, ", "))
	}
	if r, _, err := k.current(); value != nil && err == nil {
		if m, known := agent.LookupModel(r.Name, r.Model); known && !m.Reasoning {
			return server.Error(jsonrpc2.InvalidParams, "REASONING_UNSUPPORTED",
				fmt.Sprintf("%s takes no reasoning effort; pick a reasoning model first (models/list marks them reasoning: true)", r.Model),
				map[string]any{"provider": r.Name, "model": r.Model})
		}
	}
	_, err := agent.UpdateConfig(agent.ConfigPath(k.env), map[string]any{"reasoningEffort": value})
	return err
}

// Runtime.

func (k *Service) runtimeState(ctx context.Context, p sessionParams) (map[string]any, error) {
	ms, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	var model any
	defaultProvider, defaultModel, thinking := "", "", "off"
	r, cfg, err := k.current()
	if err == nil {
		model = modelEntry(describe(r.Name, r.Model), cfg.ReasoningEffort, true)
		defaultProvider, defaultModel = r.Name, r.Name+"/"+r.Model
		if r.ReasoningEffort != "" { // what turns send, not what is stored
			thinking = r.ReasoningEffort
		}
	} else if cfg != nil && cfg.ReasoningEffort != "" {
		thinking = cfg.ReasoningEffort
	}
	autoCompaction := cfg != nil && !cfg.Compaction.Disabled
	h := ms.Header()
	return map[string]any{
		"model": model, "thinkingLevel": thinking, "isStreaming": ms.Streaming(), "isCompacting": ms.Compacting(),
		"steeringMode": "in-flight", "followUpMode": "one-at-a-time",
		"sessionFile": ms.Path(), "sessionId": h.ID, "rpcSessionId": ms.ID(), "persistentSessionId": h.ID,
		"sessionName": nilIfEmpty(ms.Name()), "autoCompactionEnabled": autoCompaction, "autoRetryEnabled": true,
		"defaultProvider": defaultProvider, "defaultModel": defaultModel, "defaultThinkingLevel": thinking,
		"transport": "kward-rpc", "messageCount": len(ms.History()), "pendingMessageCount": ms.Pending(),
	}, nil
}

func (k *Service) runtimeStats(ctx context.Context, p sessionParams) (map[string]any, error) {
	ms, err := k.session(p.SessionID)
	if err != nil {
		return nil, err
	}
	history := ms.History()
	var user, assistant, calls, results int
	var usage agent.Usage
	for _, m := range history {
		switch m.Role {
		case agent.RoleUser:
			user++
		case agent.RoleAssistant:
			assistant++
			calls += len(m.ToolCalls)
			if m.Usage != nil {
				usage.Add(*m.Usage)
			}
		case agent.RoleTool:
			results++
		}
	}
	h := ms.Header()
	out := map[string]any{
		"sessionFile": ms.Path(), "sessionId": h.ID, "sessionName": nilIfEmpty(ms.Name()),
		"rpcSessionId": ms.ID(), "persistentSessionId": h.ID,
		"userMessages": user, "assistantMessages": assistant, "toolCalls": calls, "toolResults": results,
		"totalMessages": user + assistant + results, "usingSubscription": false,
		"tokens": map[string]any{"input": usage.InputTokens, "output": usage.OutputTokens, "total": usage.TotalTokens},
	}
	// Only a conversation with content has a meaningful estimate.
	if pol := k.mgr.CompactionPolicy(); user+assistant+results > 0 && pol.ContextWindow > 0 {
		est := agent.EstimateTokens(history)
		out["contextUsage"] = map[string]any{"tokens": est, "contextWindow": pol.ContextWindow,
			"percent": float64(int(float64(est)*10000/float64(pol.ContextWindow))) / 100, "estimated": true}
	}
	return out, nil
}

type settingParams struct {
	SessionID string `json:"sessionId"`
	SettingID string `json:"settingId"`
	Value     any    `json:"value"`
}

func (k *Service) runtimeUpdateSetting(ctx context.Context, p settingParams) (map[string]any, error) {
	if _, err := k.session(p.SessionID); err != nil {
		return nil, err
	}
	value, ok := p.Value.(string)
	if !ok || strings.TrimSpace(value) == "" {
		return nil, server.InvalidParams("value must be a non-empty string")
	}
	switch p.SettingID {
	case "defaultModel":
		provider, model, ok := agent.SplitModel(value)
		if !ok {
			return nil, server.InvalidParams("defaultModel must be Provider/model-id, not %q", value)
		}
		if err := k.setModel(provider, model); err != nil {
			return nil, err
		}
	case "defaultThinkingLevel":
		if err := k.setEffort(value); err != nil {
			return nil, err
		}
	case "":
		return nil, required("settingId")
	default:
		return nil, server.InvalidParams("unsupported settingId %q; want defaultModel or defaultThinkingLevel", p.SettingID)
	}
	return map[string]any{"applied": "live", "message": fmt.Sprintf("%s updated; the next turn uses it.", p.SettingID)}, nil
}

func (k *Service) runtimeReload(ctx context.Context, p sessionParams) (map[string]any, error) {
	if _, err := k.session(p.SessionID); err != nil {
		return nil, err
	}
	if _, err := k.mgr.Config(); err != nil {
		return nil, err
	}
	k.rt.Reload()
	return map[string]any{"ok": true, "message": "Resources reloaded."}, nil
}

// Config.

type configReadParams struct {
	Redacted *bool `json:"redacted"`
}

func (k *Service) configRead(ctx context.Context, p configReadParams) (map[string]any, error) {
	path := agent.ConfigPath(k.env)
	cfg, err := agent.ReadConfigMap(path)
	if err != nil {
		return nil, k.redactError(err)
	}
	if p.Redacted != nil && !*p.Redacted {
		return map[string]any{"path": path, "config": cfg, "redacted": false}, nil
	}
	return map[string]any{"path": path, "config": k.secrets.Value(cfg), "redacted": true}, nil
}

type configUpdateParams struct {
	Values map[string]any `json:"values"`
}

func (k *Service) configUpdate(ctx context.Context, p configUpdateParams) (map[string]any, error) {
	if len(p.Values) == 0 {
		return nil, required("values")
	}
	path := agent.ConfigPath(k.env)
	if _, err := agent.UpdateConfig(path, p.Values); err != nil {
		return nil, server.InvalidParams("%v", err)
	}
	k.rt.Reload()
	cfg, err := agent.ReadConfigMap(path)
	if err != nil {
		return nil, err
	}
	return map[string]any{"path": path, "config": cfg, "redacted": true}, nil
}

// Auth.

// apiKeyProviders may log in with an API key.
var apiKeyProviders = []string{"openai", "anthropic", "openrouter", "moonshot"}

func (k *Service) authStatus(ctx context.Context, _ struct{}) (map[string]any, error) {
	creds, err := k.logins.Store.Load()
	if err != nil {
		return nil, err
	}
	cfg, _ := k.mgr.Config()
	_, oauth := creds["openai"]
	return map[string]any{
		"openaiOAuth":            oauth && creds["openai"].Type == "oauth",
		"openaiAccessTokenEnv":   k.env("OPENAI_API_KEY") != "",
		"openrouterApiKeyEnv":    k.env("OPENROUTER_API_KEY") != "",
		"openrouterApiKeyConfig": creds["openrouter"].Key != "" || (cfg != nil && cfg.Providers["openrouter"].APIKey != ""),
	}, nil
}

func (k *Service) authProviders(ctx context.Context, _ struct{}) (map[string]any, error) {
	creds, err := k.logins.Store.Load()
	if err != nil {
		return nil, err
	}
	cfg, _ := k.mgr.Config()
	cards := []map[string]any{}
	for _, id := range apiKeyProviders {
		methods := []string{"api_key"}
		if id == "openai" {
			methods = append(methods, "oauth")
		}
		stored, hasStored := creds[id]
		env := k.env(agent.BuiltinProviders[id].KeyEnv) != ""
		source := any(nil)
		switch {
		case hasStored:
			source = "stored"
		case env:
			source = "environment"
		case cfg != nil && cfg.Providers[id].APIKey != "":
			source = "config"
		}
		cards = append(cards, map[string]any{
			"id": id, "name": providerTitle(id), "authenticationMethods": methods, "configured": source != nil,
			"source": source, "storedMethod": nilIfEmpty(stored.Type), "environment": env, "canLogout": hasStored,
			"keyEnv": agent.BuiltinProviders[id].KeyEnv,
		})
	}
	return map[string]any{"providers": cards, "apiKeyProviders": apiKeyProviders, "oauthProviders": []string{"openai"}}, nil
}

func providerTitle(id string) string {
	return map[string]string{"openai": "OpenAI", "anthropic": "Anthropic", "openrouter": "OpenRouter", "moonshot": "Moonshot"}[id]
}

type apiKeyParams struct {
	ProviderID string `json:"providerId"`
	APIKey     string `json:"apiKey"`
}

func (k *Service) authLoginWithAPIKey(ctx context.Context, p apiKeyParams) (map[string]any, error) {
	if !slices.Contains(apiKeyProviders, p.ProviderID) {
		return nil, server.InvalidParams("unsupported providerId %q; want one of %s", p.ProviderID, strings.Join(apiKeyProviders, ", "))
	}
	key := strings.TrimSpace(p.APIKey)
	if key == "" {
		return nil, required("apiKey")
	}
	k.secrets.Add(key) // before anything could echo it
	if err := k.logins.Store.Set(p.ProviderID, agent.Credential{Type: "api_key", Key: key}); err != nil {
		return nil, err
	}
	return map[string]any{"providerId": p.ProviderID, "configured": true,
		"message": fmt.Sprintf("API key for %s stored in %s.", providerTitle(p.ProviderID), k.logins.Store.Path)}, nil
}

type providerParams struct {
	ProviderID     string `json:"providerId"`
	TimeoutSeconds int    `json:"timeoutSeconds"`
}

func (k *Service) authLogout(ctx context.Context, p providerParams) (map[string]any, error) {
	if p.ProviderID == "" {
		return nil, required("providerId")
	}
	removed, err := k.logins.Store.Remove(p.ProviderID)
	if err != nil {
		return nil, err
	}
	msg := "No stored credentials for " + p.ProviderID + "."
	if removed {
		msg = "Stored credentials for " + p.ProviderID + " removed; environment variables stay active."
	}
	return map[string]any{"providerId": p.ProviderID, "removed": removed, "message": msg}, nil
}

func (k *Service) authLoginWithOAuth(ctx context.Context, p providerParams) (map[string]any, error) {
	if p.ProviderID != "openai" {
		return nil, server.InvalidParams("unsupported OAuth providerId %q; want openai", p.ProviderID)
	}
	return k.startLogin(ctx, p.TimeoutSeconds)
}

func (k *Service) authStartOpenAILogin(ctx context.Context, p providerParams) (map[string]any, error) {
	return k.startLogin(ctx, p.TimeoutSeconds)
}

func (k *Service) startLogin(ctx context.Context, timeoutSeconds int) (map[string]any, error) {
	if timeoutSeconds < 0 || timeoutSeconds > 3600 {
		return nil, server.InvalidParams("timeoutSeconds must be between 1 and 3600")
	}
	cfg, err := k.mgr.Config()
	if err != nil {
		return nil, err
	}
	info, err := k.logins.Start(agent.OpenAIOAuth(cfg.OAuth["openai"]), time.Duration(timeoutSeconds)*time.Second)
	if err != nil {
		return nil, server.Error(jsonrpc2.InternalError, "OAUTH_START_FAILED", err.Error(), nil)
	}
	if conn := server.ConnOf(ctx); conn != nil {
		k.loginConns.Store(info.ID, conn)
	}
	return loginPayload(info), nil
}

func loginPayload(info agent.LoginInfo) map[string]any {
	return map[string]any{"providerId": info.Provider, "loginId": info.ID, "authorizationUrl": info.AuthorizationURL,
		"redirectUri": info.RedirectURI, "status": info.Status, "message": nilIfEmpty(info.Message), "error": nilIfEmpty(info.Error)}
}

// loginFinished tells the connection that started a login how it ended;
// the runtime has learned a completed login's tokens before it calls this.
func (k *Service) loginFinished(info agent.LoginInfo) {
	conn, ok := k.loginConns.LoadAndDelete(info.ID)
	if !ok {
		return
	}
	payload := loginPayload(info)
	delete(payload, "authorizationUrl")
	k.notify(conn.(*server.Conn), "auth/loginFinished", payload)
}

type codeParams struct {
	LoginID string `json:"loginId"`
	Code    string `json:"code"`
}

func (k *Service) authSubmitCode(ctx context.Context, p codeParams) (map[string]any, error) {
	if p.LoginID == "" {
		return nil, required("loginId")
	}
	info, err := k.logins.Submit(ctx, p.LoginID, p.Code)
	if err != nil {
		return nil, err
	}
	return loginPayload(info), nil
}

func (k *Service) authLoginStatus(ctx context.Context, p codeParams) (map[string]any, error) {
	if p.LoginID == "" {
		return nil, required("loginId")
	}
	info, ok := k.logins.Status(p.LoginID)
	if !ok {
		return nil, server.Error(jsonrpc2.InvalidParams, "LOGIN_NOT_FOUND", fmt.Sprintf("unknown loginId %q", p.LoginID), nil)
	}
	return loginPayload(info), nil
}

// Logging.

type loggingParams struct {
	Range string `json:"range"`
}

func (k *Service) loggingStats(ctx context.Context, p loggingParams) (map[string]any, error) {
	cats := k.rt.LogCategories()
	if len(cats) == 0 {
		return nil, stateError("LOGGING_DISABLED",
			`logging is disabled: set "logging": {"enabled": true} in `+agent.ConfigPath(k.env)+" or KAST_LOGGING=1", nil)
	}
	if p.Range == "" {
		p.Range = "1 week"
	}
	since, err := agent.ParseRange(p.Range, time.Now())
	if err != nil {
		return nil, err
	}
	st, err := k.telemetry.Stats(since)
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	return map[string]any{"range": p.Range, "since": kwardTime(since), "logDirectory": k.telemetry.Dir, "categories": cats,
		"records": st.Records, "events": st.Events, "usageStats": st.Usage, "performance": st.Performance,
		"tools": st.Tools, "errors": st.Errors}, nil
}

func firstNonEmptyString(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
