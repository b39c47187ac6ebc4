package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"
)

// ModelInfo describes a model clients may pick.
type ModelInfo struct {
	Provider      string `json:"provider"`
	ID            string `json:"id"`
	Name          string `json:"name"`
	Reasoning     bool   `json:"reasoning"`
	ContextWindow int    `json:"contextWindow"`
}

// KnownModels are the built-in providers' well-known models.
var KnownModels = []ModelInfo{
	{"openai", "gpt-4.1", "GPT-4.1", false, 1047576},
	{"openai", "gpt-4.1-mini", "GPT-4.1 mini", false, 1047576},
	{"openai", "gpt-5", "GPT-5", true, 400000},
	{"openai", "gpt-5-mini", "GPT-5 mini", true, 400000},
	{"openai", "o4-mini", "o4-mini", true, 200000},
	{"anthropic", "claude-sonnet-4-5", "Claude Sonnet 4.5", true, 200000},
	{"anthropic", "claude-opus-4-1", "Claude Opus 4.1", true, 200000},
	{"anthropic", "claude-haiku-4-5", "Claude Haiku 4.5", true, 200000},
	{"openrouter", "openai/gpt-4.1", "OpenAI: GPT-4.1", false, 1047576},
	{"openrouter", "anthropic/claude-sonnet-4.5", "Anthropic: Claude Sonnet 4.5", true, 1000000},
	{"moonshot", "kimi-k2-0905-preview", "Kimi K2", false, 262144},
	{"ollama", "llama3.2", "Llama 3.2", false, 131072},
}

// ReasoningEfforts are the accepted thinking levels.
var ReasoningEfforts = []string{"minimal", "low", "medium", "high"}

// LookupModel finds a known model, ignoring the provider when it is "".
func LookupModel(provider, id string) (ModelInfo, bool) {
	for _, m := range KnownModels {
		if m.ID == id && (provider == "" || m.Provider == provider) {
			return m, true
		}
	}
	return ModelInfo{}, false
}

// Catalog fetches and caches OpenRouter's model catalog.
type Catalog struct {
	// CachePath holds the last fetched catalog (0600).
	CachePath  string
	TTL        time.Duration
	HTTPClient *http.Client
}

// OpenRouter returns the catalog at baseURL (…/api/v1): from the cache while
// it is fresh, else fetched. Offline, a stale cache is served; with no cache
// the error says the catalog could not be fetched.
func (c *Catalog) OpenRouter(ctx context.Context, baseURL string) ([]ModelInfo, error) {
	cached, fetchedAt, cacheErr := c.read()
	if cacheErr == nil && time.Since(fetchedAt) < c.TTL {
		return cached, nil
	}
	models, err := FetchOpenRouter(ctx, c.HTTPClient, baseURL+"/models", "")
	if err != nil {
		if cacheErr == nil {
			return cached, nil
		}
		return nil, fmt.Errorf("cannot fetch the OpenRouter model catalog and none is cached: %w", err)
	}
	data, err := json.Marshal(map[string]any{"fetchedAt": time.Now().UTC().Format(TimeFormat), "models": models})
	if err == nil {
		err = writePrivate(c.CachePath, data)
	}
	return models, err
}

func (c *Catalog) read() ([]ModelInfo, time.Time, error) {
	data, err := os.ReadFile(c.CachePath)
	if err != nil {
		return nil, time.Time{}, err
	}
	var cache struct {
		FetchedAt string      `json:"fetchedAt"`
		Models    []ModelInfo `json:"models"`
	}
	if err := json.Unmarshal(data, &cache); err != nil {
		return nil, time.Time{}, err
	}
	t, err := time.Parse(TimeFormat, cache.FetchedAt)
	return cache.Models, t, err
}

// FetchOpenRouter reads an OpenRouter model listing (GET /models, or
// /models/user with the key for the models that key may use).
func FetchOpenRouter(ctx context.Context, client *http.Client, url, apiKey string) ([]ModelInfo, error) {
	if client == nil {
		client = &http.Client{Timeout: 15 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	if apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+apiKey)
	}
	resp, err := client.Do(req)
	if err != nil {
		var uerr interface{ Unwrap() error }
		if errors.As(err, &uerr) && uerr.Unwrap() != nil {
			err = uerr.Unwrap()
		}
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("GET %s: HTTP %d", url, resp.StatusCode)
	}
	var body struct {
		Data []struct {
			ID                  string   `json:"id"`
			Name                string   `json:"name"`
			ContextLength       int      `json:"context_length"`
			SupportedParameters []string `json:"supported_parameters"`
		} `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return nil, fmt.Errorf("GET %s: %w", url, err)
	}
	models := []ModelInfo{}
	for _, d := range body.Data {
		reasoning := containsString(d.SupportedParameters, "reasoning") || containsString(d.SupportedParameters, "include_reasoning")
		models = append(models, ModelInfo{Provider: "openrouter", ID: d.ID, Name: firstNonEmpty(d.Name, d.ID),
			Reasoning: reasoning, ContextWindow: d.ContextLength})
	}
	return models, nil
}

// SplitModel splits "Provider/model-id" at the first slash, so model ids
// with slashes (OpenRouter's) survive.
func SplitModel(s string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(s, "/")
	return strings.ToLower(strings.TrimSpace(provider)), strings.TrimSpace(model), ok && provider != "" && model != ""
}
