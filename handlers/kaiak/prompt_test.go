package kaiak_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
)

// What the model gets for one file: the migration system prompt; the file,
// its incidents (rule, line, severity, description, details, metadata),
// the migration context, the rules' links and the file's current content;
// the file tools, which propose, and the code-intelligence tools; no
// shell.
func TestPromptAndTools(t *testing.T) {
	script := kaiaktest.NewScript(t, []byte(`{"text":["Nothing to change."]}`))
	kaiaktest.Env(t, script.URL)
	ws := kaiaktest.Fixture(t, "java")
	k := newProcess(t)()
	sid := k.session(ws, nil)
	req := k.generate(sid, javaIncidents(t, orderJava))
	k.next("kaiak/stream/system", req)
	var body struct {
		Messages []struct {
			Role    string `json:"role"`
			Content string `json:"content"`
		} `json:"messages"`
		Tools []struct {
			Function struct {
				Name string `json:"name"`
			} `json:"function"`
		} `json:"tools"`
	}
	if err := json.Unmarshal([]byte(script.Bodies()[0]), &body); err != nil {
		t.Fatal(err)
	}
	var tools []string
	for _, tl := range body.Tools {
		tools = append(tools, tl.Function.Name)
	}
	for _, want := range []string{"read_file", "write_file", "edit_file", "delete_file", "rename_file", "list_directory",
		"resolve_symbol", "find_references", "file_outline", "workspace_symbols"} {
		if !slices.Contains(tools, want) {
			t.Errorf("the model lacks %s: %v", want, tools)
		}
	}
	if slices.Contains(tools, "run_shell_command") {
		t.Error("the model was offered the shell, whose changes could not be proposed")
	}
	system, user := body.Messages[0].Content, body.Messages[len(body.Messages)-1].Content
	if body.Messages[0].Role != "system" || !strings.Contains(system, "migration assistant") || !strings.Contains(system, "approve") {
		t.Errorf("system prompt:\n%s", system)
	}
	for _, want := range []string{
		"Fix the following migration incidents in `src/main/java/com/example/Order.java` (workspace " + ws + ").",
		"1. Rule `javax-to-jakarta-import-00001`, line 3 (severity error, category mandatory)",
		"   Description: The package 'javax' has been replaced by 'jakarta'",
		"   Details: Replace the `javax.persistence` import statement with `jakarta.persistence`",
		"2. Rule `javax-to-jakarta-import-00001`, line 4",
		"   Metadata: {\"effort\":1}",
		"## Migration context\n\n- source_technology: Java EE 8\n- target_technology: Jakarta EE 9\n",
		"## Links from the rules\n\n- Jakarta EE 9: https://jakarta.ee/specifications/platform/9/\n",
		"## Current content of `src/main/java/com/example/Order.java`\n\n```java\npackage com.example;\n\nimport javax.persistence.Entity;\n",
		"with edit_file (targeted replacements, preferred) or write_file with the entire updated content",
	} {
		if !strings.Contains(user, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, user)
		}
	}
}
