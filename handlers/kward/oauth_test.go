package kward_test

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/kast-dev/kast/agent"
)

func freePort(t *testing.T) int {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func TestKwardOAuthLoopback(t *testing.T) {
	kwardEnv(t, "")
	// A loopback authorization server that checks PKCE at the token endpoint.
	var mu sync.Mutex
	challenge := ""
	auth := newRecordingServer(t, func(w http.ResponseWriter, r *http.Request) {
		r.ParseForm()
		mu.Lock()
		want := challenge
		mu.Unlock()
		sum := sha256.Sum256([]byte(r.PostForm.Get("code_verifier")))
		if r.URL.Path != "/oauth/token" || r.PostForm.Get("code") != "good-code" || base64.RawURLEncoding.EncodeToString(sum[:]) != want {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"invalid_grant"}`)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"access_token":"oauth-access-fixture-token","refresh_token":"oauth-refresh-fixture-token","id_token":"id-fixture-token","token_type":"Bearer","expires_in":3600}`)
	})
	writeConfig(t, map[string]any{"oauth": map[string]any{"openai": map[string]any{"issuer": auth.URL, "clientId": "test-client", "callbackPort": freePort(t)}}})
	c, wire := tapClient(t)
	ctx := ctxT(t)
	if code, _ := rpcCode(t, c.Call(ctx, "auth/loginWithOAuth", map[string]any{"providerId": "openrouter"}, nil)); code != -32602 {
		t.Fatal("OAuth for openrouter accepted")
	}
	var login struct {
		LoginID          string `json:"loginId"`
		AuthorizationURL string `json:"authorizationUrl"`
		RedirectURI      string `json:"redirectUri"`
		Status           string `json:"status"`
		ProviderID       string `json:"providerId"`
	}
	mustCall(t, c, "auth/loginWithOAuth", map[string]any{"providerId": "openai", "timeoutSeconds": 30}, &login)
	u, err := url.Parse(login.AuthorizationURL)
	if err != nil || login.Status != "pending" || login.ProviderID != "openai" || !strings.HasPrefix(login.AuthorizationURL, auth.URL+"/oauth/authorize?") {
		t.Fatalf("login %+v", login)
	}
	q := u.Query()
	if q.Get("code_challenge_method") != "S256" || q.Get("client_id") != "test-client" || q.Get("redirect_uri") != login.RedirectURI {
		t.Fatalf("authorization URL %s", login.AuthorizationURL)
	}
	mu.Lock()
	challenge = q.Get("code_challenge")
	mu.Unlock()
	// A callback with the wrong state is refused and does not end the login.
	if resp, err := http.Get(login.RedirectURI + "?code=good-code&state=forged"); err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("forged callback: %v %v", resp, err)
	}
	// The browser comes back to the loopback callback.
	resp, err := http.Get(login.RedirectURI + "?code=good-code&state=" + q.Get("state"))
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("callback: %v %v", resp, err)
	}
	n, err := c.WaitNotification(ctx, "auth/loginFinished")
	if err != nil {
		t.Fatal(err)
	}
	var fin map[string]any
	json.Unmarshal(n.Params, &fin)
	if fin["status"] != "completed" || fin["loginId"] != login.LoginID || fin["providerId"] != "openai" || fin["redirectUri"] != login.RedirectURI {
		t.Fatalf("loginFinished %v", fin)
	}
	var st map[string]any
	mustCall(t, c, "auth/loginStatus", map[string]any{"loginId": login.LoginID}, &st)
	var status map[string]any
	mustCall(t, c, "auth/status", nil, &status)
	if st["status"] != "completed" || status["openaiOAuth"] != true {
		t.Fatalf("status %v %v", st, status)
	}
	authPath := agent.AuthPath(os.Getenv)
	stored, _ := os.ReadFile(authPath)
	if fileMode(t, authPath) != 0o600 || !strings.Contains(string(stored), "oauth-refresh-fixture-token") {
		t.Fatalf("auth.json (%v):\n%s", fileMode(t, authPath), stored)
	}

	// A second login completed by a submitted callback URL; a bad code fails.
	mustCall(t, c, "auth/startOpenAILogin", map[string]any{"timeoutSeconds": 30}, &login)
	u, _ = url.Parse(login.AuthorizationURL)
	var submitted map[string]any
	mustCall(t, c, "auth/submitOpenAICode", map[string]any{"loginId": login.LoginID, "code": login.RedirectURI + "?code=bad-code&state=" + u.Query().Get("state")}, &submitted)
	if submitted["status"] != "failed" || !strings.Contains(fmt.Sprint(submitted["error"]), "HTTP 400") {
		t.Fatalf("bad code %v", submitted)
	}

	var providers struct {
		Providers []map[string]any `json:"providers"`
	}
	mustCall(t, c, "auth/providers", nil, &providers)
	if providers.Providers[0]["id"] != "openai" || providers.Providers[0]["source"] != "stored" || providers.Providers[0]["canLogout"] != true {
		t.Fatalf("providers %v", providers.Providers)
	}
	var out map[string]any
	mustCall(t, c, "auth/logoutProvider", map[string]any{"providerId": "openai"}, &out)
	if out["removed"] != true {
		t.Fatalf("logout %v", out)
	}
	for _, secret := range []string{"oauth-access-fixture-token", "oauth-refresh-fixture-token", "id-fixture-token"} {
		if strings.Contains(wire.String(), secret) {
			t.Errorf("wire carries %s", secret)
		}
	}
}
