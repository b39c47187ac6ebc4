package agent

import (
	"context"
	"errors"
	"fmt"
	"html"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/oauth2"
)

// OAuthProvider describes an OAuth authorization-code flow with PKCE and a
// loopback callback.
type OAuthProvider struct {
	Name         string
	Issuer       string
	ClientID     string
	Scopes       []string
	CallbackPort int
	CallbackPath string
	// AuthParams are extra authorization request parameters.
	AuthParams map[string]string
}

// OpenAIOAuth is the ChatGPT sign-in flow Codex and Kward use, with cfg's
// overrides.
func OpenAIOAuth(cfg OAuthConfig) OAuthProvider {
	p := OAuthProvider{
		Name:         "openai",
		Issuer:       firstNonEmpty(cfg.Issuer, "https://auth.openai.com"),
		ClientID:     firstNonEmpty(cfg.ClientID, "app_EMoamEEZ73f0CkXaXp7hrann"),
		Scopes:       []string{"openid", "profile", "email", "offline_access"},
		CallbackPort: cfg.CallbackPort,
		CallbackPath: "/auth/callback",
		AuthParams:   map[string]string{"id_token_add_organizations": "true", "codex_cli_simplified_flow": "true"},
	}
	if p.CallbackPort == 0 {
		p.CallbackPort = 1455
	}
	return p
}

// Login states.
const (
	LoginPending   = "pending"
	LoginCompleted = "completed"
	LoginFailed    = "failed"
)

// LoginInfo is a login's state as clients see it.
type LoginInfo struct {
	ID               string
	Provider         string
	Status           string
	AuthorizationURL string
	RedirectURI      string
	Message          string
	Error            string
}

type login struct {
	info     LoginInfo
	conf     *oauth2.Config
	verifier string
	state    string
	srv      *http.Server
	ln       net.Listener
	timer    *time.Timer
}

// Logins runs OAuth logins: each listens on a loopback callback server
// until the browser comes back, a code is submitted, or it times out, then
// stores the tokens and reports the end through OnFinish.
type Logins struct {
	Store AuthStore
	// HTTPClient exchanges codes for tokens; nil means http.DefaultClient.
	HTTPClient *http.Client
	OnFinish   func(LoginInfo)

	mu     sync.Mutex
	logins map[string]*login
}

// Start begins a login and returns the URL the user must open. A previous
// pending login of the same provider is failed, freeing its port.
func (ls *Logins) Start(p OAuthProvider, timeout time.Duration) (LoginInfo, error) {
	ls.mu.Lock()
	var superseded []*login
	for _, l := range ls.logins {
		if l.info.Provider == p.Name && l.info.Status == LoginPending {
			superseded = append(superseded, l)
		}
	}
	ls.mu.Unlock()
	for _, l := range superseded { // before binding: they hold the callback port
		ls.finish(l, LoginFailed, "", "superseded by a new login")
	}

	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(p.CallbackPort)))
	if err != nil {
		return LoginInfo{}, fmt.Errorf("starting the OAuth callback server on port %d: %w", p.CallbackPort, err)
	}
	redirect := fmt.Sprintf("http://localhost:%d%s", ln.Addr().(*net.TCPAddr).Port, p.CallbackPath)
	issuer := strings.TrimSuffix(p.Issuer, "/")
	l := &login{
		conf: &oauth2.Config{ClientID: p.ClientID, RedirectURL: redirect, Scopes: p.Scopes,
			Endpoint: oauth2.Endpoint{AuthURL: issuer + "/oauth/authorize", TokenURL: issuer + "/oauth/token", AuthStyle: oauth2.AuthStyleInParams}},
		verifier: oauth2.GenerateVerifier(),
		state:    NewID(),
	}
	opts := []oauth2.AuthCodeOption{oauth2.S256ChallengeOption(l.verifier)}
	for k, v := range p.AuthParams {
		opts = append(opts, oauth2.SetAuthURLParam(k, v))
	}
	l.info = LoginInfo{ID: NewID(), Provider: p.Name, Status: LoginPending, RedirectURI: redirect,
		AuthorizationURL: l.conf.AuthCodeURL(l.state, opts...)}
	mux := http.NewServeMux()
	mux.HandleFunc(p.CallbackPath, func(w http.ResponseWriter, r *http.Request) { ls.callback(l, w, r) })
	l.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	l.ln = ln
	go l.srv.Serve(ln)
	if timeout <= 0 {
		timeout = 120 * time.Second
	}
	l.timer = time.AfterFunc(timeout, func() {
		ls.finish(l, LoginFailed, "", fmt.Sprintf("no OAuth callback within %s", timeout))
	})
	ls.mu.Lock()
	if ls.logins == nil {
		ls.logins = map[string]*login{}
	}
	ls.logins[l.info.ID] = l
	ls.mu.Unlock()
	return l.info, nil
}

func (ls *Logins) callback(l *login, w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var info LoginInfo
	switch {
	case q.Get("state") != l.state:
		http.Error(w, "state mismatch: start the login again", http.StatusBadRequest)
		return // a stray request must not end the login
	case q.Get("error") != "":
		info = ls.finish(l, LoginFailed, "", "authorization denied: "+q.Get("error"))
	default:
		info = ls.complete(r.Context(), l, q.Get("code"))
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	if info.Status == LoginCompleted {
		fmt.Fprint(w, "<p>Signed in to kast. You can close this window.</p>")
	} else {
		fmt.Fprintf(w, "<p>Sign-in failed: %s</p>", html.EscapeString(info.Error))
	}
}

// Submit completes a login with an authorization code or the callback URL
// the browser was sent to.
func (ls *Logins) Submit(ctx context.Context, id, code string) (LoginInfo, error) {
	ls.mu.Lock()
	l, ok := ls.logins[id]
	ls.mu.Unlock()
	if !ok {
		return LoginInfo{}, &InputError{fmt.Sprintf("unknown loginId %q", id)}
	}
	code = strings.TrimSpace(code)
	if u, err := url.Parse(code); err == nil && u.Scheme != "" && u.Query().Get("code") != "" {
		if st := u.Query().Get("state"); st != "" && st != l.state {
			return LoginInfo{}, &InputError{"the callback URL's state does not match this login"}
		}
		code = u.Query().Get("code")
	}
	if code == "" {
		return LoginInfo{}, &InputError{"code is empty"}
	}
	return ls.complete(ctx, l, code), nil
}

// Status returns a login's state.
func (ls *Logins) Status(id string) (LoginInfo, bool) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	l, ok := ls.logins[id]
	if !ok {
		return LoginInfo{}, false
	}
	return l.info, true
}

func (ls *Logins) complete(ctx context.Context, l *login, code string) LoginInfo {
	if info, done := ls.Status(l.info.ID); done && info.Status != LoginPending {
		return info
	}
	client := ls.HTTPClient
	if client == nil {
		client = http.DefaultClient
	}
	ctx, cancel := context.WithTimeout(context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, client), 30*time.Second)
	defer cancel()
	tok, err := l.conf.Exchange(ctx, code, oauth2.VerifierOption(l.verifier))
	if err != nil {
		var re *oauth2.RetrieveError
		msg := err.Error()
		if errors.As(err, &re) {
			msg = fmt.Sprintf("token exchange failed: HTTP %d %s", re.Response.StatusCode, re.ErrorCode)
		}
		return ls.finish(l, LoginFailed, "", msg)
	}
	cred := Credential{Type: "oauth", AccessToken: tok.AccessToken, RefreshToken: tok.RefreshToken}
	if id, ok := tok.Extra("id_token").(string); ok {
		cred.IDToken = id
	}
	if !tok.Expiry.IsZero() {
		cred.ExpiresAt = tok.Expiry.UTC().Format(TimeFormat)
	}
	if err := ls.Store.Set(l.info.Provider, cred); err != nil {
		return ls.finish(l, LoginFailed, "", "storing the credentials: "+err.Error())
	}
	return ls.finish(l, LoginCompleted, "Signed in.", "")
}

// finish ends a pending login once: it stops the callback server and timer
// and reports the end.
func (ls *Logins) finish(l *login, status, message, errMsg string) LoginInfo {
	ls.mu.Lock()
	if l.info.Status != LoginPending {
		info := l.info
		ls.mu.Unlock()
		return info
	}
	l.info.Status, l.info.Message, l.info.Error = status, message, errMsg
	info := l.info
	ls.mu.Unlock()
	l.timer.Stop()
	// The port is freed now, so a new login can bind it at once; the
	// connections are shut down off this goroutine, since finish may run
	// inside the server's own handler, which Shutdown would wait for.
	_ = l.ln.Close()
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = l.srv.Shutdown(ctx)
	}()
	if ls.OnFinish != nil {
		ls.OnFinish(info)
	}
	return info
}
