package acp_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/kast-dev/kast/server/servertest"
)

// The ACP v1 JSON schema (../shared/reference/agent-protocols/acp-schema-v1)
// checks what kast sends: every reply by its request's method, every
// notification and request to the client by its method.

type acpSchema struct {
	c     *jsonschema.Compiler
	cache map[string]*jsonschema.Schema
}

// Definitions by method: the reply to a client request, the params of what
// the agent sends.
var (
	responseDefs = map[string]string{
		"initialize": "InitializeResponse", "authenticate": "AuthenticateResponse", "session/new": "NewSessionResponse",
		"session/load": "LoadSessionResponse", "session/resume": "ResumeSessionResponse", "session/list": "ListSessionsResponse",
		"session/close": "CloseSessionResponse", "session/set_mode": "SetSessionModeResponse", "session/prompt": "PromptResponse",
	}
	agentSentDefs = map[string]string{
		"session/update": "SessionNotification", "session/request_permission": "RequestPermissionRequest",
		"fs/read_text_file": "ReadTextFileRequest", "fs/write_text_file": "WriteTextFileRequest",
		"terminal/create": "CreateTerminalRequest", "terminal/output": "TerminalOutputRequest",
		"terminal/wait_for_exit": "WaitForTerminalExitRequest", "terminal/kill": "KillTerminalRequest",
		"terminal/release": "ReleaseTerminalRequest",
	}
	clientSentDefs = map[string]string{
		"initialize": "InitializeRequest", "authenticate": "AuthenticateRequest", "session/new": "NewSessionRequest",
		"session/load": "LoadSessionRequest", "session/resume": "ResumeSessionRequest", "session/list": "ListSessionsRequest",
		"session/close": "CloseSessionRequest", "session/set_mode": "SetSessionModeRequest", "session/prompt": "PromptRequest",
		"session/cancel": "CancelNotification",
	}
)

func loadSchema(t *testing.T) *acpSchema {
	dir := servertest.Shared(t, "reference/agent-protocols/acp-schema-v1")
	data, err := os.ReadFile(filepath.Join(dir, "schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	c := jsonschema.NewCompiler()
	if err := c.AddResource("file:///acp-schema.json", doc); err != nil {
		t.Fatal(err)
	}
	return &acpSchema{c: c, cache: map[string]*jsonschema.Schema{}}
}

func (s *acpSchema) validate(t *testing.T, def string, raw []byte) {
	t.Helper()
	sch := s.cache[def]
	if sch == nil {
		var err error
		if sch, err = s.c.Compile("file:///acp-schema.json#/$defs/" + def); err != nil {
			t.Fatalf("compiling %s: %v", def, err)
		}
		s.cache[def] = sch
	}
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		t.Errorf("%s: not JSON: %v", def, err)
		return
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("%s does not conform:\n%s\n%v", def, raw, err)
	}
}

// checkResult validates a reply to a client request.
func (s *acpSchema) checkResult(t *testing.T, method string, result json.RawMessage) {
	t.Helper()
	if def, ok := responseDefs[method]; ok {
		s.validate(t, def, result)
	}
}

// checkSent validates the params of a notification or request kast sent;
// a method outside ACP's client methods is an error.
func (s *acpSchema) checkSent(t *testing.T, method string, params json.RawMessage) {
	t.Helper()
	def, ok := agentSentDefs[method]
	if !ok {
		t.Errorf("kast sent %s, which is no ACP client method", method)
		return
	}
	s.validate(t, def, params)
}
