package agent

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// Runtime is the agent state of one process, built once and shared by
// every protocol projection: the session manager, the secrets redactor,
// memory, telemetry, OAuth logins and the OpenRouter catalog, and what they
// derive from the config file and the environment. Projections drive the
// same sessions, memory, secrets and logins whichever protocol a client
// speaks.
type Runtime struct {
	env       Env
	tools     Toolset
	manager   *Manager
	secrets   *Redactor
	memory    *MemoryStore
	telemetry *Telemetry
	logins    *Logins
	catalog   *Catalog

	// logCategories are the enabled telemetry categories as of the last
	// Reload.
	logCategories atomic.Pointer[[]string]

	listenersMu  sync.Mutex
	listeners    map[uint64]func(LoginInfo)
	nextListener uint64
}

// RuntimeOptions configures a Runtime.
type RuntimeOptions struct {
	// Env reads the environment; nil means os.Getenv. It places the config
	// file (ConfigPath) and the data folder (DataDir) too.
	Env Env
	// Tools are the tools turns offer the model (agent/tools over the
	// process's code-intelligence indexes in production).
	Tools Toolset
	// NewProvider builds the provider of a resolved configuration (the
	// agent/provider package in production).
	NewProvider func(Resolved) (Provider, error)
	// LaunchDir is the workspace of requests that name none; "" means the
	// working directory.
	LaunchDir string
}

// NewRuntime returns the process's agent state. It only reads the config
// and the stored credentials (to learn their secrets) and kills the
// commands a kast that died left running (see Procs), so it is cheap.
func NewRuntime(opts RuntimeOptions) *Runtime {
	env := opts.Env
	if env == nil {
		env = os.Getenv
	}
	launch := opts.LaunchDir
	if launch == "" {
		launch, _ = os.Getwd()
	}
	data := DataDir(env)
	// Commands a kast that died left running are killed before this one
	// starts its own.
	procs := &Procs{Dir: filepath.Join(data, "running")}
	procs.Reap()
	tools := opts.Tools
	if tools != nil {
		tools = procTools{tools, procs}
	}
	rt := &Runtime{
		env:       env,
		tools:     tools,
		secrets:   &Redactor{},
		catalog:   &Catalog{CachePath: filepath.Join(data, "cache", "openrouter_models.json"), TTL: time.Hour},
		listeners: map[uint64]func(LoginInfo){},
	}
	rt.memory = &MemoryStore{Dir: filepath.Join(data, "memory"), Redact: rt.secrets}
	rt.telemetry = &Telemetry{Dir: filepath.Join(data, "logs"), Enabled: rt.LogCategories}
	rt.logins = &Logins{Store: AuthStore{Path: AuthPath(env)}, OnFinish: rt.loginFinished}
	rt.manager = NewManager(ManagerOptions{
		Env:         env,
		Store:       &Store{Dir: filepath.Join(data, "sessions"), Redact: rt.secrets},
		Tools:       tools,
		LaunchDir:   launch,
		ConfigDir:   filepath.Dir(ConfigPath(env)),
		Auth:        rt.logins.Store,
		Memory:      rt.memory,
		Telemetry:   rt.telemetry,
		Secrets:     rt.secrets,
		NewProvider: opts.NewProvider,
	})
	rt.Reload()
	return rt
}

// Env reads the environment the runtime was built with.
func (rt *Runtime) Env() Env { return rt.env }

// Tools are the tools turns offer the model.
func (rt *Runtime) Tools() Toolset { return rt.tools }

// Manager owns the process's open sessions and their turns.
func (rt *Runtime) Manager() *Manager { return rt.manager }

// Secrets redacts every secret the runtime knows of.
func (rt *Runtime) Secrets() *Redactor { return rt.secrets }

// Memory is the user's memory store.
func (rt *Runtime) Memory() *MemoryStore { return rt.memory }

// Telemetry records turn events in the enabled log categories.
func (rt *Runtime) Telemetry() *Telemetry { return rt.telemetry }

// Logins runs the OAuth logins; their end is reported to the listeners of
// OnLoginFinished.
func (rt *Runtime) Logins() *Logins { return rt.logins }

// Catalog caches the OpenRouter model catalog.
func (rt *Runtime) Catalog() *Catalog { return rt.catalog }

// Reload rereads what the runtime derives from the config file and the
// environment: it teaches the redactor every configured secret value (the
// providers' key variables, KAST_EMBED_API_KEY, keys in the config file,
// stored credentials) and rereads the telemetry categories. Secrets once
// learned stay known.
func (rt *Runtime) Reload() {
	cats := readLogCategories(rt.env)
	rt.logCategories.Store(&cats)
	for _, pc := range BuiltinProviders {
		if pc.KeyEnv != "" {
			rt.secrets.Add(rt.env(pc.KeyEnv))
		}
	}
	// The embedding service's key (semantic search) is the process's too.
	rt.secrets.Add(rt.env("KAST_EMBED_API_KEY"))
	if cfg, err := LoadConfig(ConfigPath(rt.env)); err == nil {
		for _, pc := range cfg.Providers {
			rt.secrets.Add(pc.APIKey)
			if pc.KeyEnv != "" {
				rt.secrets.Add(rt.env(pc.KeyEnv))
			}
		}
	}
	if creds, err := rt.logins.Store.Load(); err == nil {
		for _, c := range creds {
			rt.secrets.Add(c.Secrets()...)
		}
	}
}

// LogCategories returns the enabled telemetry categories; none means
// telemetry is off.
func (rt *Runtime) LogCategories() []string {
	if c := rt.logCategories.Load(); c != nil {
		return *c
	}
	return nil
}

// readLogCategories reads the config's logging settings; KAST_LOGGING (1,
// true, all or on; 0, false, off or none; or a comma list) overrides them.
// Unknown categories are dropped.
func readLogCategories(env Env) []string {
	var cats []string
	if cfg, err := LoadConfig(ConfigPath(env)); err == nil {
		cats = cfg.Logging.Categories
		if cfg.Logging.Enabled && len(cats) == 0 {
			cats = LogCategories
		}
	}
	switch v := strings.ToLower(strings.TrimSpace(env("KAST_LOGGING"))); v {
	case "":
	case "1", "true", "all", "on":
		cats = LogCategories
	case "0", "false", "off", "none":
		cats = nil
	default:
		cats = strings.Split(v, ",")
	}
	var out []string
	for _, c := range cats {
		if c = strings.TrimSpace(c); slices.Contains(LogCategories, c) && !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

// OnLoginFinished registers fn to learn how each login ended (a projection
// tells the client that started it); a completed login's secrets are
// already known to the redactor when fn runs. The returned func
// unregisters fn.
func (rt *Runtime) OnLoginFinished(fn func(LoginInfo)) (unregister func()) {
	rt.listenersMu.Lock()
	defer rt.listenersMu.Unlock()
	id := rt.nextListener
	rt.nextListener++
	rt.listeners[id] = fn
	return func() {
		rt.listenersMu.Lock()
		defer rt.listenersMu.Unlock()
		delete(rt.listeners, id)
	}
}

// loginFinished is the logins' OnFinish: it learns a completed login's
// credentials, then tells the listeners.
func (rt *Runtime) loginFinished(info LoginInfo) {
	if info.Status == LoginCompleted {
		rt.Reload()
	}
	rt.listenersMu.Lock()
	fns := make([]func(LoginInfo), 0, len(rt.listeners))
	for _, fn := range rt.listeners {
		fns = append(fns, fn)
	}
	rt.listenersMu.Unlock()
	for _, fn := range fns {
		fn(info)
	}
}
