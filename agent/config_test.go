package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func envOf(vars map[string]string) Env { return func(k string) string { return vars[k] } }

func TestResolveProvider(t *testing.T) {
	cfg := &Config{}
	r, err := cfg.Resolve(envOf(map[string]string{"ANTHROPIC_API_KEY": "ak"}), "cfg")
	if err != nil || r.Name != "anthropic" || r.API != APIAnthropic || r.APIKey != "ak" {
		t.Fatalf("auto-detected %+v, %v", r, err)
	}
	r, err = cfg.Resolve(envOf(map[string]string{"KAST_PROVIDER": "ollama", "KAST_MODEL": "qwen3", "KAST_BASE_URL": "http://127.0.0.1:9/v1"}), "cfg")
	if err != nil || r.Model != "qwen3" || r.BaseURL != "http://127.0.0.1:9/v1" || r.APIKey != "" {
		t.Fatalf("ollama %+v, %v", r, err)
	}
	_, err = cfg.Resolve(envOf(map[string]string{"KAST_PROVIDER": "openai"}), "/x/config.json")
	if !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("missing key: %v", err)
	}
	_, err = cfg.Resolve(envOf(nil), "/x/config.json")
	if !errors.Is(err, ErrNoProvider) || !strings.Contains(err.Error(), "KAST_PROVIDER") || !strings.Contains(err.Error(), "/x/config.json") {
		t.Fatalf("nothing configured: %v", err)
	}
	custom := &Config{Provider: "vllm", Model: "m", Providers: map[string]ProviderConfig{
		"vllm": {BaseURL: "http://127.0.0.1:8000/v1", NoKey: true},
	}}
	r, err = custom.Resolve(envOf(nil), "cfg")
	if err != nil || r.API != APIChat || r.Model != "m" {
		t.Fatalf("custom %+v, %v", r, err)
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	env := envOf(map[string]string{"XDG_CONFIG_HOME": dir, "XDG_DATA_HOME": filepath.Join(dir, "data")})
	path := ConfigPath(env)
	if path != filepath.Join(dir, "kast", "config.json") || DataDir(env) != filepath.Join(dir, "data", "kast") {
		t.Fatalf("paths %s %s", path, DataDir(env))
	}
	c, err := LoadConfig(path)
	if err != nil || c.Provider != "" {
		t.Fatalf("missing file: %+v %v", c, err)
	}
	c.Provider = "openai"
	c.Providers = map[string]ProviderConfig{"openai": {APIKey: "sk-stored"}}
	if err := c.Save(path); err != nil {
		t.Fatal(err)
	}
	fi, _ := os.Stat(path)
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("config mode %v", fi.Mode().Perm())
	}
	c2, _ := LoadConfig(path)
	r, err := c2.Resolve(env, path)
	if err != nil || r.APIKey != "sk-stored" {
		t.Fatalf("stored key: %+v %v", r, err)
	}
	r, _ = c2.Resolve(envOf(map[string]string{"OPENAI_API_KEY": "sk-env"}), path)
	if r.APIKey != "sk-env" {
		t.Fatalf("the environment does not override the file: %+v", r)
	}
}
