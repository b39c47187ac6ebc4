package server

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"slices"
	"sort"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// Class decides how the dispatcher schedules a method.
type Class int

const (
	// Ordered methods run inline on the read loop, in wire order. They must be
	// cheap: document sync, lifecycle, configuration.
	Ordered Class = iota
	// Concurrent methods are read-only queries: the document snapshot is taken
	// inline, then the read loop is released so later messages proceed.
	Concurrent
	// Exclusive methods mutate the workspace: they run alone, after in-flight
	// concurrent methods finish and before new ones start.
	Exclusive
)

func (c Class) String() string {
	return [...]string{"ordered", "concurrent", "exclusive"}[c]
}

// Method is one registered JSON-RPC method.
type Method struct {
	Name         string
	Class        Class
	Notification bool
	// Either accepts the method both as a request and as a notification.
	Either bool
	Params reflect.Type
	Result reflect.Type // nil for notifications
	call   func(ctx context.Context, params jsonrpc2.RawMessage) (any, error)
}

// Registry maps method names to typed handlers. Protocol families register
// their methods here; the transport never changes for them.
type Registry struct {
	mu       sync.RWMutex
	methods  map[string]*Method
	families map[string]any
	// atShutdown are the families' hooks run when a connection shuts down
	// (LSP's shutdown, before its reply), e.g. ending streaming turns.
	atShutdown []func(ctx context.Context)
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{methods: map[string]*Method{}, families: map[string]any{}}
}

// Spec is one row of a protocol family's methods table: the wire name, its
// params and result types, its class and its handler. A family builds its
// table from Request and Notification and registers it with Register; its
// capability advertisement derives from the same rows (Capability).
type Spec struct {
	method *Method
	// Capability is what the family advertises for this method, in its own
	// terms (an LSP provider, a Kast capability name); "" advertises nothing.
	Capability string
}

// Name is the method's wire name.
func (s Spec) Name() string { return s.method.Name }

// Class is how the dispatcher schedules the method.
func (s Spec) Class() Class { return s.method.Class }

// EitherWay returns the row accepting its method also as a notification
// (a request row) or also as a request (a notification row, answered
// null): for clients known to send it both ways.
func (s Spec) EitherWay() Spec {
	m := *s.method
	m.Either = true
	s.method = &m
	return s
}

// Advertise returns the row with its capability tag set.
func (s Spec) Advertise(capability string) Spec {
	s.Capability = capability
	return s
}

// Request is a table row for a request whose params decode into P and whose
// result is R. A pointer P is never nil: absent params give a zero value.
func Request[P, R any](name string, class Class, h func(ctx context.Context, params P) (R, error)) Spec {
	return Spec{method: &Method{
		Name:   name,
		Class:  class,
		Params: reflect.TypeFor[P](),
		Result: reflect.TypeFor[R](),
		call: func(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
			var p P
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return h(ctx, p)
		},
	}}
}

// Notification is a table row for a notification whose params decode into P.
func Notification[P any](name string, class Class, h func(ctx context.Context, params P) error) Spec {
	return Spec{method: &Method{
		Name:         name,
		Class:        class,
		Notification: true,
		Params:       reflect.TypeFor[P](),
		call: func(ctx context.Context, raw jsonrpc2.RawMessage) (any, error) {
			var p P
			if err := decodeParams(raw, &p); err != nil {
				return nil, err
			}
			return nil, h(ctx, p)
		},
	}}
}

// Register adds a family's table to the registry.
func (r *Registry) Register(table []Spec) {
	for _, s := range table {
		r.add(s.method)
	}
}

// Handle registers a request whose params decode into P and whose result is R.
func Handle[P, R any](r *Registry, name string, class Class, h func(ctx context.Context, params P) (R, error)) *Method {
	return r.add(Request(name, class, h).method)
}

// Notify registers a notification whose params decode into P.
func Notify[P any](r *Registry, name string, class Class, h func(ctx context.Context, params P) error) *Method {
	return r.add(Notification(name, class, h).method)
}

func (r *Registry) add(m *Method) *Method {
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.methods[m.Name]; dup {
		panic(fmt.Sprintf("server: method %q registered twice", m.Name))
	}
	r.methods[m.Name] = m
	return m
}

// Alias makes alias answer exactly like the registered method name.
func (r *Registry) Alias(alias, name string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.methods[name]
	if !ok {
		panic(fmt.Sprintf("server: alias %q for unregistered method %q", alias, name))
	}
	if _, dup := r.methods[alias]; dup {
		panic(fmt.Sprintf("server: alias %q collides with a registered method", alias))
	}
	r.methods[alias] = m
}

// Family records a protocol family's capability object, advertised in
// InitializeResult.capabilities.experimental.<name>.
func (r *Registry) Family(name string, capabilities any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.families[name] = capabilities
}

// OnShutdown adds a hook that runs, in registration order, when a
// connection of a Lifecycle profile receives shutdown, before the profile's
// own hook and the reply: a family ends its connection's work there (Kward
// finishes streaming turns, Kaiak denies pending proposals).
func (r *Registry) OnShutdown(hook func(ctx context.Context)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.atShutdown = append(r.atShutdown, hook)
}

// shutdownHooks returns the registered hooks.
func (r *Registry) shutdownHooks() []func(ctx context.Context) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return slices.Clone(r.atShutdown)
}

// Lookup finds a method by name or alias.
func (r *Registry) Lookup(name string) (*Method, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	m, ok := r.methods[name]
	return m, ok
}

// Names lists every registered name, aliases included, sorted.
func (r *Registry) Names() []string {
	r.mu.RLock()
	defer r.mu.RUnlock()
	names := make([]string, 0, len(r.methods))
	for n := range r.methods {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Families returns a copy of the capability objects by family name.
func (r *Registry) Families() map[string]any {
	r.mu.RLock()
	defer r.mu.RUnlock()
	out := make(map[string]any, len(r.families))
	for k, v := range r.families {
		out[k] = v
	}
	return out
}

// decodeParams decodes raw params through the LSP codec. Absent or null params
// leave the zero value, which handlers validate like any other input.
func decodeParams(raw jsonrpc2.RawMessage, v any) error {
	defer allocate(v)
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if err := protocol.Unmarshal(raw, v); err != nil {
		return InvalidParams("invalid params: %v", err)
	}
	return nil
}

// allocate points a nil pointer that v points to at a new zero value, so a
// handler taking *P never sees nil params.
func allocate(v any) {
	p := reflect.ValueOf(v).Elem()
	if p.Kind() == reflect.Pointer && p.IsNil() {
		p.Set(reflect.New(p.Type().Elem()))
	}
}
