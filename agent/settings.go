package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// settingsMu serializes read-modify-write cycles of the config and auth
// files within the process.
var settingsMu sync.Mutex

// ReadConfigMap reads the config file as a generic object, keeping keys kast
// does not model; a missing file is an empty object.
func ReadConfigMap(path string) (map[string]any, error) {
	return readJSONObject(path)
}

// UpdateConfig merges values into the config file and returns the result.
// Objects merge key by key, a null deletes a key, anything else replaces.
// The merged file must still decode as a Config, else nothing is written.
func UpdateConfig(path string, values map[string]any) (*Config, error) {
	settingsMu.Lock()
	defer settingsMu.Unlock()
	current, err := readJSONObject(path)
	if err != nil {
		return nil, err
	}
	merge(current, values)
	data, err := json.MarshalIndent(current, "", "  ")
	if err != nil {
		return nil, err
	}
	var c Config
	if err := json.Unmarshal(data, &c); err != nil {
		return nil, fmt.Errorf("invalid config value: %w", err)
	}
	if err := writePrivate(path, append(data, '\n')); err != nil {
		return nil, err
	}
	return &c, nil
}

func merge(dst, src map[string]any) {
	for k, v := range src {
		switch v := v.(type) {
		case nil:
			delete(dst, k)
		case map[string]any:
			sub, ok := dst[k].(map[string]any)
			if !ok {
				sub = map[string]any{}
			}
			merge(sub, v)
			dst[k] = sub
		default:
			dst[k] = v
		}
	}
}

func readJSONObject(path string) (map[string]any, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]any{}, nil
	}
	if err != nil {
		return nil, err
	}
	out := map[string]any{}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// writePrivate replaces path atomically with a 0600 file in a 0700 folder.
func writePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-"+filepath.Base(path)+"-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// AuthPath returns the credential store next to the config file.
func AuthPath(env Env) string {
	return filepath.Join(filepath.Dir(ConfigPath(env)), "auth.json")
}

// Credential is one provider's stored credential.
type Credential struct {
	Type         string `json:"type"` // api_key or oauth
	Key          string `json:"key,omitempty"`
	AccessToken  string `json:"accessToken,omitempty"`
	RefreshToken string `json:"refreshToken,omitempty"`
	IDToken      string `json:"idToken,omitempty"`
	ExpiresAt    string `json:"expiresAt,omitempty"`
	StoredAt     string `json:"storedAt"`
}

// Secret is the value a provider authenticates with.
func (c Credential) Secret() string {
	if c.Type == "oauth" {
		return c.AccessToken
	}
	return c.Key
}

// Secrets lists every secret value of c, for redaction.
func (c Credential) Secrets() []string {
	return []string{c.Key, c.AccessToken, c.RefreshToken, c.IDToken}
}

// AuthStore keeps credentials in one 0600 JSON file.
type AuthStore struct{ Path string }

// Load returns the stored credentials by provider.
func (a AuthStore) Load() (map[string]Credential, error) {
	data, err := os.ReadFile(a.Path)
	if errors.Is(err, os.ErrNotExist) {
		return map[string]Credential{}, nil
	}
	if err != nil {
		return nil, err
	}
	var out struct {
		Providers map[string]Credential `json:"providers"`
	}
	if err := json.Unmarshal(data, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", a.Path, err)
	}
	if out.Providers == nil {
		out.Providers = map[string]Credential{}
	}
	return out.Providers, nil
}

// Set stores provider's credential.
func (a AuthStore) Set(provider string, c Credential) error {
	c.StoredAt = time.Now().UTC().Format(TimeFormat)
	return a.update(func(m map[string]Credential) bool { m[provider] = c; return true })
}

// Remove deletes provider's credential and reports whether there was one.
func (a AuthStore) Remove(provider string) (bool, error) {
	removed := false
	err := a.update(func(m map[string]Credential) bool {
		_, removed = m[provider]
		delete(m, provider)
		return removed
	})
	return removed, err
}

func (a AuthStore) update(change func(map[string]Credential) bool) error {
	settingsMu.Lock()
	defer settingsMu.Unlock()
	m, err := a.Load()
	if err != nil {
		return err
	}
	if !change(m) {
		return nil
	}
	data, err := json.MarshalIndent(map[string]any{"providers": m}, "", "  ")
	if err != nil {
		return err
	}
	return writePrivate(a.Path, append(data, '\n'))
}
