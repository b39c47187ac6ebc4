package server

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
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
	Params       reflect.Type
	Result       reflect.Type // nil for notifications
	call         func(ctx context.Context, params jsonrpc2.RawMessage) (any, error)
}

// Registry maps method names to typed handlers. Protocol families register
// their methods here; the transport never changes for them.
type Registry struct {
	mu       sync.RWMutex
	methods  map[string]*Method
	families map[string]any
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{methods: map[string]*Method{}, families: map[string]any{}}
}

// Handle registers a request whose params decode into P and whose result is R.
func Handle[P, R any](r *Registry, name string, class Class, h func(ctx context.Context, params P) (R, error)) *Method {
	return r.add(&Method{
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
	})
}

// Notify registers a notification whose params decode into P.
func Notify[P any](r *Registry, name string, class Class, h func(ctx context.Context, params P) error) *Method {
	return r.add(&Method{
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
	})
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
	if trimmed := bytes.TrimSpace(raw); len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return nil
	}
	if err := protocol.Unmarshal(raw, v); err != nil {
		return InvalidParams("invalid params: %v", err)
	}
	return nil
}
