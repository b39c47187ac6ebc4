package kast

import (
	"context"
	"fmt"

	"github.com/kast-dev/kast/analysis/modules"
	"github.com/kast-dev/kast/analysis/naming"
)

type noParams struct{}

func (*noParams) paramsOptional() {}

type healthResponse struct {
	Status         string `json:"status"`
	BackendName    string `json:"backendName"`
	BackendVersion string `json:"backendVersion"`
	WorkspaceRoot  string `json:"workspaceRoot"`
	SchemaVersion  int    `json:"schemaVersion"`
}

func (k *Service) health(ctx context.Context, _ *noParams) (healthResponse, error) {
	return healthResponse{"ok", kastBackendName, k.version, k.rootFor(""), kastSchemaVersion}, nil
}

type runtimeStatus struct {
	State                                  string              `json:"state"`
	Healthy                                bool                `json:"healthy"`
	Active                                 bool                `json:"active"`
	Indexing                               bool                `json:"indexing"`
	BackendName                            string              `json:"backendName"`
	BackendVersion                         string              `json:"backendVersion"`
	WorkspaceRoot                          string              `json:"workspaceRoot"`
	Message                                *string             `json:"message,omitempty"`
	Warnings                               []string            `json:"warnings"`
	SourceModuleNames                      []string            `json:"sourceModuleNames"`
	DependentModuleNamesBySourceModuleName map[string][]string `json:"dependentModuleNamesBySourceModuleName"`
	ReferenceIndexReady                    bool                `json:"referenceIndexReady"`
	SchemaVersion                          int                 `json:"schemaVersion"`
}

// runtimeStatus reports the root's first index honestly: INDEXING with
// counts until it ends, READY once definitions and references are indexed,
// DEGRADED with the failure otherwise, and DEGRADED with a warning when the
// index is held in memory (another process owns the persistent one, or the
// disk is full): answers still come, but are rebuilt on every start.
func (k *Service) runtimeStatus(ctx context.Context, _ *noParams) (runtimeStatus, error) {
	root := k.rootFor("")
	kr, err := k.open(root)
	st := runtimeStatus{BackendName: kastBackendName, BackendVersion: k.version, WorkspaceRoot: root, Active: true,
		Warnings: []string{}, SourceModuleNames: []string{naming.RootModule(root)}, DependentModuleNamesBySourceModuleName: map[string][]string{},
		SchemaVersion: kastSchemaVersion}
	var msg string
	switch {
	case err != nil:
		st.State, msg = "DEGRADED", "cannot open the index"
		st.Warnings = append(st.Warnings, err.Error())
	default:
		progress, ready, ferr := k.pool.IndexState(root)
		switch {
		case !ready:
			msg = fmt.Sprintf("indexing: %d/%d files", progress.Done, progress.Total)
			st.State, st.Healthy, st.Indexing = "INDEXING", true, true
		case ferr != nil:
			st.State, msg = "DEGRADED", "indexing failed"
			st.Warnings = append(st.Warnings, ferr.Error())
		case kr.ws.Index.InMemory():
			st.State, st.Healthy, st.ReferenceIndexReady = "DEGRADED", true, true
			msg = "the index is held in memory, not on disk"
		default:
			st.State, st.Healthy, st.ReferenceIndexReady = "READY", true, true
		}
		n := kr.ws.Notice()
		if ready && n == "" && kr.ws.Index.InMemory() {
			n = "The workspace index is held in memory: it is rebuilt whenever kast starts"
		}
		if ready && n != "" {
			st.Warnings = append(st.Warnings, n)
		}
	}
	if mm := modules.Load(root); len(mm.Modules) > 0 {
		st.SourceModuleNames, st.DependentModuleNamesBySourceModuleName = mm.Names(), mm.Dependents()
		st.Warnings = append(st.Warnings, mm.Problems...)
	}
	if msg != "" {
		st.Message = &msg
	}
	return st, nil
}

type lifecycleResponse struct {
	Accepted       bool    `json:"accepted"`
	Action         string  `json:"action"`
	BackendName    string  `json:"backendName"`
	BackendVersion string  `json:"backendVersion"`
	WorkspaceRoot  string  `json:"workspaceRoot"`
	Message        *string `json:"message,omitempty"`
	SchemaVersion  int     `json:"schemaVersion"`
}

func (k *Service) runtimeAction(action string) func(ctx context.Context, _ *noParams) (lifecycleResponse, error) {
	return func(ctx context.Context, _ *noParams) (lifecycleResponse, error) {
		if k.lifecycle == nil {
			return lifecycleResponse{}, apiError(kastNotSupported, "CAPABILITY_NOT_SUPPORTED",
				"This host does not support runtime lifecycle requests", map[string]string{"capability": "RUNTIME_LIFECYCLE"})
		}
		k.lifecycle(ctx, action)
		return lifecycleResponse{true, action, kastBackendName, k.version, k.rootFor(""), nil, kastSchemaVersion}, nil
	}
}

type serverLimits struct {
	MaxResults              int `json:"maxResults"`
	RequestTimeoutMillis    int `json:"requestTimeoutMillis"`
	MaxConcurrentRequests   int `json:"maxConcurrentRequests"`
	PerFileScanBudgetMillis int `json:"perFileScanBudgetMillis"`
}

type backendCapabilities struct {
	BackendName          string       `json:"backendName"`
	BackendVersion       string       `json:"backendVersion"`
	WorkspaceRoot        string       `json:"workspaceRoot"`
	ReadCapabilities     []string     `json:"readCapabilities"`
	MutationCapabilities []string     `json:"mutationCapabilities"`
	Limits               serverLimits `json:"limits"`
	SchemaVersion        int          `json:"schemaVersion"`
}

func (k *Service) capabilities(ctx context.Context, _ *noParams) (backendCapabilities, error) {
	read, mutation := advertised(k.methods())
	return backendCapabilities{kastBackendName, k.version, k.rootFor(""), read, mutation,
		serverLimits{kastMaxResults, 30000, 4, 5000}, kastSchemaVersion}, nil
}
