package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// APIs a provider may speak.
const (
	APIChat      = "chat"      // OpenAI-compatible chat completions
	APIResponses = "responses" // OpenAI Responses
	APIAnthropic = "anthropic" // Anthropic Messages
)

// Config is $XDG_CONFIG_HOME/kast/config.json.
type Config struct {
	// Provider names the provider turns use: a built-in one or a key of Providers.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	BaseURL  string `json:"baseUrl,omitempty"`
	// Providers defines new providers or overrides built-in ones' fields.
	Providers map[string]ProviderConfig `json:"providers,omitempty"`
	// ReasoningEffort is the thinking level asked of reasoning models
	// (minimal, low, medium, high); empty leaves the provider's default.
	ReasoningEffort string                 `json:"reasoningEffort,omitempty"`
	Memory          MemoryConfig           `json:"memory,omitzero"`
	Compaction      CompactionConfig       `json:"compaction,omitzero"`
	Logging         LoggingConfig          `json:"logging,omitzero"`
	OAuth           map[string]OAuthConfig `json:"oauth,omitempty"`

	// Credentials are stored API keys and OAuth tokens by provider (from
	// auth.json, never from config.json), used when no other key is set.
	Credentials map[string]string `json:"-"`
}

// MemoryConfig switches structured memory; both are off by default.
type MemoryConfig struct {
	Enabled     bool `json:"enabled,omitempty"`
	AutoSummary bool `json:"autoSummary,omitempty"`
}

// CompactionConfig tunes automatic compaction; zero values take defaults.
type CompactionConfig struct {
	Disabled         bool `json:"disabled,omitempty"`
	ReserveTokens    int  `json:"reserveTokens,omitempty"`
	KeepRecentTokens int  `json:"keepRecentTokens,omitempty"`
	// ContextWindow overrides the model's known context window.
	ContextWindow int `json:"contextWindow,omitempty"`
}

// LoggingConfig enables local telemetry (metadata only) by category:
// tokens, performance, tools, errors. Enabled alone turns on all four.
type LoggingConfig struct {
	Enabled    bool     `json:"enabled,omitempty"`
	Categories []string `json:"categories,omitempty"`
}

// OAuthConfig overrides a provider's OAuth endpoints, for self-hosted or test
// authorization servers.
type OAuthConfig struct {
	Issuer       string `json:"issuer,omitempty"`
	ClientID     string `json:"clientId,omitempty"`
	CallbackPort int    `json:"callbackPort,omitempty"`
}

// ProviderConfig is one provider's settings.
type ProviderConfig struct {
	API     string `json:"api,omitempty"` // chat (default), responses or anthropic
	BaseURL string `json:"baseUrl,omitempty"`
	Model   string `json:"model,omitempty"`
	APIKey  string `json:"apiKey,omitempty"`
	// KeyEnv is the environment variable holding the API key.
	KeyEnv string `json:"keyEnv,omitempty"`
	// NoKey marks servers that need no key (Ollama, llama.cpp, vLLM).
	NoKey bool `json:"noKey,omitempty"`
}

// BuiltinProviders are the providers known without configuration.
var BuiltinProviders = map[string]ProviderConfig{
	"openai":     {API: APIChat, BaseURL: "https://api.openai.com/v1", Model: "gpt-4.1", KeyEnv: "OPENAI_API_KEY"},
	"anthropic":  {API: APIAnthropic, BaseURL: "https://api.anthropic.com", Model: "claude-sonnet-4-5", KeyEnv: "ANTHROPIC_API_KEY"},
	"openrouter": {API: APIChat, BaseURL: "https://openrouter.ai/api/v1", Model: "openai/gpt-4.1", KeyEnv: "OPENROUTER_API_KEY"},
	"moonshot":   {API: APIChat, BaseURL: "https://api.moonshot.ai/v1", Model: "kimi-k2-0905-preview", KeyEnv: "MOONSHOT_API_KEY"},
	"ollama":     {API: APIChat, BaseURL: "http://localhost:11434/v1", Model: "llama3.2", NoKey: true},
}

// autoDetectOrder is the order in which providers are picked when none is
// named but one's key variable is set.
var autoDetectOrder = []string{"openai", "anthropic", "openrouter", "moonshot"}

// Resolved is the provider a turn will use.
type Resolved struct {
	Name    string
	API     string
	BaseURL string
	Model   string
	APIKey  string
	// ReasoningEffort is the configured thinking level, or "" (also for a
	// model known to take none).
	ReasoningEffort string
}

// Env reads environment variables; os.Getenv in production.
type Env func(string) string

// ConfigPath returns $XDG_CONFIG_HOME/kast/config.json (~/.config by default).
func ConfigPath(env Env) string {
	return filepath.Join(xdgDir(env, "XDG_CONFIG_HOME", ".config"), "kast", "config.json")
}

// DataDir returns $XDG_DATA_HOME/kast (~/.local/share by default).
func DataDir(env Env) string {
	return filepath.Join(xdgDir(env, "XDG_DATA_HOME", filepath.Join(".local", "share")), "kast")
}

func xdgDir(env Env, name, fallback string) string {
	if d := env(name); filepath.IsAbs(d) {
		return d
	}
	home := env("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	return filepath.Join(home, fallback)
}

// LoadConfig reads the config file at path; a missing file is an empty config.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return &Config{}, nil
	}
	if err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &c, nil
}

// Save writes the config file with mode 0600 in a 0700 folder.
func (c *Config) Save(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(data, '\n'), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, path)
}

// Resolve picks the provider from KAST_PROVIDER, then the config, then the
// first built-in provider whose key variable is set; KAST_MODEL and
// KAST_BASE_URL override the model and endpoint. The error says how to
// configure a provider when none is usable.
func (c *Config) Resolve(env Env, configPath string) (Resolved, error) {
	name := env("KAST_PROVIDER")
	if name == "" {
		name = c.Provider
	}
	if name == "" {
		for _, n := range autoDetectOrder {
			if env(BuiltinProviders[n].KeyEnv) != "" {
				name = n
				break
			}
		}
	}
	if name == "" {
		return Resolved{}, fmt.Errorf("%w: set KAST_PROVIDER to one of %s and its API key (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENROUTER_API_KEY or MOONSHOT_API_KEY), or set \"provider\" in %s",
			ErrNoProvider, strings.Join(c.providerNames(), ", "), configPath)
	}
	pc, builtin := BuiltinProviders[name]
	override, configured := c.Providers[name]
	if !builtin && !configured {
		return Resolved{}, fmt.Errorf("%w: unknown provider %q; use one of %s or define it under \"providers\" in %s",
			ErrNoProvider, name, strings.Join(c.providerNames(), ", "), configPath)
	}
	pc = mergeProvider(pc, override)
	r := Resolved{Name: name, API: pc.API, BaseURL: pc.BaseURL, Model: pc.Model, APIKey: pc.APIKey}
	if r.API == "" {
		r.API = APIChat
	}
	if name == c.Provider || c.Provider == "" {
		r.Model = firstNonEmpty(c.Model, r.Model)
		r.BaseURL = firstNonEmpty(c.BaseURL, r.BaseURL)
	}
	r.Model = firstNonEmpty(env("KAST_MODEL"), r.Model)
	r.BaseURL = firstNonEmpty(env("KAST_BASE_URL"), r.BaseURL)
	if pc.KeyEnv != "" && env(pc.KeyEnv) != "" {
		r.APIKey = env(pc.KeyEnv)
	}
	if r.APIKey == "" {
		r.APIKey = c.Credentials[name]
	}
	r.ReasoningEffort = c.ReasoningEffort
	if m, known := LookupModel(name, r.Model); known && !m.Reasoning {
		r.ReasoningEffort = "" // the model rejects requests that carry one
	}
	switch {
	case r.APIKey == "" && !pc.NoKey && pc.KeyEnv != "":
		return Resolved{}, fmt.Errorf("%w: provider %s needs an API key: set %s or \"apiKey\" under providers.%s in %s",
			ErrNoProvider, name, pc.KeyEnv, name, configPath)
	case r.APIKey == "" && !pc.NoKey:
		return Resolved{}, fmt.Errorf("%w: provider %s needs an API key: set \"apiKey\" or \"keyEnv\" (or \"noKey\": true) under providers.%s in %s",
			ErrNoProvider, name, name, configPath)
	case r.Model == "":
		return Resolved{}, fmt.Errorf("%w: provider %s has no model: set KAST_MODEL or \"model\" in %s", ErrNoProvider, name, configPath)
	case r.BaseURL == "":
		return Resolved{}, fmt.Errorf("%w: provider %s has no endpoint: set KAST_BASE_URL or \"baseUrl\" under providers.%s in %s",
			ErrNoProvider, name, name, configPath)
	}
	return r, nil
}

func (c *Config) providerNames() []string {
	var names []string
	for n := range BuiltinProviders {
		names = append(names, n)
	}
	for n := range c.Providers {
		if _, dup := BuiltinProviders[n]; !dup {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	return names
}

func mergeProvider(base, over ProviderConfig) ProviderConfig {
	base.API = firstNonEmpty(over.API, base.API)
	base.BaseURL = firstNonEmpty(over.BaseURL, base.BaseURL)
	base.Model = firstNonEmpty(over.Model, base.Model)
	base.APIKey = firstNonEmpty(over.APIKey, base.APIKey)
	base.KeyEnv = firstNonEmpty(over.KeyEnv, base.KeyEnv)
	base.NoKey = base.NoKey || over.NoKey
	return base
}

func firstNonEmpty(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
