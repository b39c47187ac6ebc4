package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// runtimeEnv is an environment whose config and data live under a test
// folder, with vars on top.
func runtimeEnv(t *testing.T, vars map[string]string) map[string]string {
	dir := t.TempDir()
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "XDG_DATA_HOME": filepath.Join(dir, "data")}
	for k, v := range vars {
		env[k] = v
	}
	return env
}

func writeRuntimeConfig(t *testing.T, env Env, cfg map[string]any) {
	path := ConfigPath(env)
	data, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
}

func knowsSecret(rt *Runtime, secret string) bool {
	return rt.Secrets().String("x "+secret+" x") == "x "+Redacted+" x"
}

// The runtime learns every configured secret as it is built, and those
// configured later when it reloads.
func TestRuntimeLearnsConfiguredSecrets(t *testing.T) {
	vars := runtimeEnv(t, map[string]string{"OPENROUTER_API_KEY": "env-builtin-value", "TEAM_KEY": "env-custom-value",
		"KAST_EMBED_API_KEY": "env-embed-value"})
	env := envOf(vars)
	writeRuntimeConfig(t, env, map[string]any{"providers": map[string]any{
		"team": map[string]any{"baseUrl": "http://127.0.0.1:9/v1", "apiKey": "config-key-value", "keyEnv": "TEAM_KEY"},
	}})
	if err := (AuthStore{Path: AuthPath(env)}).Set("openai", Credential{Type: "oauth", AccessToken: "stored-access-value", RefreshToken: "stored-refresh-value"}); err != nil {
		t.Fatal(err)
	}
	rt := NewRuntime(RuntimeOptions{Env: env})
	for _, secret := range []string{"env-builtin-value", "env-custom-value", "env-embed-value", "config-key-value", "stored-access-value", "stored-refresh-value"} {
		if !knowsSecret(rt, secret) {
			t.Errorf("the runtime does not redact %s", secret)
		}
	}
	if knowsSecret(rt, "later-key-value") {
		t.Fatal("the runtime redacts a secret nobody configured")
	}
	if _, err := UpdateConfig(ConfigPath(env), map[string]any{"providers": map[string]any{"other": map[string]any{"apiKey": "later-key-value"}}}); err != nil {
		t.Fatal(err)
	}
	if knowsSecret(rt, "later-key-value") {
		t.Fatal("the runtime learned a new config key before reloading")
	}
	rt.Reload()
	if !knowsSecret(rt, "later-key-value") || !knowsSecret(rt, "config-key-value") {
		t.Fatal("after a reload the runtime does not redact every configured key")
	}
	// Memory and session files scrub with the same redactor.
	if rt.Memory().Redact != rt.Secrets() || rt.Manager().opts.Store.Redact != rt.Secrets() {
		t.Fatal("memory or the session store has a redactor of its own")
	}
}

// The telemetry categories come from the config; KAST_LOGGING overrides
// them, and unknown categories are dropped.
func TestRuntimeLogCategories(t *testing.T) {
	for _, tc := range []struct {
		name    string
		logging map[string]any
		env     string
		want    []string
	}{
		{"off by default", nil, "", nil},
		{"enabled alone means all", map[string]any{"enabled": true}, "", LogCategories},
		{"configured categories", map[string]any{"categories": []string{"tools", "bogus", "tools"}}, "", []string{LogTools}},
		{"KAST_LOGGING turns all on", nil, "1", LogCategories},
		{"KAST_LOGGING turns all off", map[string]any{"enabled": true}, "off", nil},
		{"KAST_LOGGING lists categories", map[string]any{"enabled": true}, " Errors , tokens,nope", []string{LogErrors, LogTokens}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := envOf(runtimeEnv(t, map[string]string{"KAST_LOGGING": tc.env}))
			if tc.logging != nil {
				writeRuntimeConfig(t, env, map[string]any{"logging": tc.logging})
			}
			rt := NewRuntime(RuntimeOptions{Env: env})
			if got := rt.LogCategories(); !slices.Equal(got, tc.want) {
				t.Fatalf("categories %v, want %v", got, tc.want)
			}
			if got := rt.Telemetry().Enabled(); !slices.Equal(got, tc.want) {
				t.Fatalf("telemetry enables %v, want %v", got, tc.want)
			}
		})
	}

	// A config edit applies on reload.
	env := envOf(runtimeEnv(t, nil))
	rt := NewRuntime(RuntimeOptions{Env: env})
	writeRuntimeConfig(t, env, map[string]any{"logging": map[string]any{"categories": []string{LogPerformance}}})
	if got := rt.LogCategories(); got != nil {
		t.Fatalf("categories %v before the reload", got)
	}
	rt.Reload()
	if got := rt.LogCategories(); !slices.Equal(got, []string{LogPerformance}) {
		t.Fatalf("categories %v after the reload", got)
	}
}

// A finished login reaches every registered listener, after the runtime has
// learned its tokens; an unregistered listener hears of no later login.
func TestRuntimeLoginListeners(t *testing.T) {
	auth := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		if r.URL.Path != "/oauth/token" || r.PostForm.Get("code") != "good-code" {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"login-access-value","refresh_token":"login-refresh-value","token_type":"Bearer","expires_in":3600}`)
	}))
	t.Cleanup(auth.Close)
	rt := NewRuntime(RuntimeOptions{Env: envOf(runtimeEnv(t, nil))})
	oauth := OAuthProvider{Name: "openai", Issuer: auth.URL, ClientID: "test-client", CallbackPath: "/auth/callback"}

	var first, second heardLogins
	unregisterFirst := rt.OnLoginFinished(func(info LoginInfo) {
		first.add(info, knowsSecret(rt, "login-access-value") && knowsSecret(rt, "login-refresh-value"))
	})
	unregisterSecond := rt.OnLoginFinished(func(info LoginInfo) { second.add(info, false) })
	defer unregisterSecond()

	login := func() LoginInfo {
		t.Helper()
		started, err := rt.Logins().Start(oauth, 0)
		if err != nil {
			t.Fatal(err)
		}
		info, err := rt.Logins().Submit(context.Background(), started.ID, "good-code")
		if err != nil || info.Status != LoginCompleted {
			t.Fatalf("login ended %+v, %v", info, err)
		}
		return info
	}

	done := login()
	heard, knewTokens := first.get()
	if len(heard) != 1 || heard[0].ID != done.ID || heard[0].Status != LoginCompleted {
		t.Fatalf("the first listener heard %+v of login %s", heard, done.ID)
	}
	if !knewTokens[0] {
		t.Fatal("a listener ran before the runtime learned the login's tokens")
	}
	if heard, _ := second.get(); len(heard) != 1 || heard[0].ID != done.ID {
		t.Fatalf("the second listener heard %+v of login %s", heard, done.ID)
	}

	unregisterFirst()
	unregisterFirst() // a second call is harmless
	again := login()
	if heard, _ := first.get(); len(heard) != 1 {
		t.Fatalf("an unregistered listener heard %+v", heard[1:])
	}
	if heard, _ := second.get(); len(heard) != 2 || heard[1].ID != again.ID {
		t.Fatalf("the remaining listener heard %+v", heard)
	}
}

// heardLogins records what a login listener heard.
type heardLogins struct {
	mu         sync.Mutex
	infos      []LoginInfo
	knewTokens []bool
}

func (h *heardLogins) add(info LoginInfo, knewTokens bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.infos = append(h.infos, info)
	h.knewTokens = append(h.knewTokens, knewTokens)
}

func (h *heardLogins) get() ([]LoginInfo, []bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.infos), slices.Clone(h.knewTokens)
}

// One runtime's parts share the process's folders and state.
func TestRuntimeWiring(t *testing.T) {
	env := envOf(runtimeEnv(t, nil))
	rt := NewRuntime(RuntimeOptions{Env: env, LaunchDir: t.TempDir()})
	data := DataDir(env)
	for name, dir := range map[string]string{"memory": rt.Memory().Dir, "telemetry": rt.Telemetry().Dir, "catalog": rt.Catalog().CachePath} {
		if !strings.HasPrefix(dir, data+string(filepath.Separator)) {
			t.Errorf("%s lives at %s, outside the data folder %s", name, dir, data)
		}
	}
	if rt.Logins().Store.Path != AuthPath(env) {
		t.Fatalf("logins store credentials at %s, want %s", rt.Logins().Store.Path, AuthPath(env))
	}
}
