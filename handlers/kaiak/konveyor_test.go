package kaiak_test

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kast-dev/kast/handlers/kaiak"
	"github.com/kast-dev/kast/handlers/kaiak/kaiaktest"
)

// The fixture's analyzer output converts field by field, its container
// URIs matched to the workspace by their tails.
func TestConvertAnalysis(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(kaiaktest.Testdata(), "java-analysis.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	ws := kaiaktest.Fixture(t, "java")
	a, err := kaiak.ConvertAnalysis(data, kaiak.ConvertOptions{Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Incidents) != 4 || a.Rulesets != 1 || a.Violations != 2 || a.Files != 4 || a.FileLevel != 1 || len(a.Unresolved) != 0 {
		t.Fatalf("counts %+v", a)
	}
	pom := a.Incidents[0]
	if pom.ID != "eap8/eap7/javax-to-jakarta-dependency-00001/0" || pom.FilePath != "pom.xml" || pom.LineNumber != 0 ||
		pom.Severity != "error" || pom.Category != "mandatory" || pom.Metadata["effort"] != 3 {
		t.Fatalf("pom incident %+v", pom)
	}
	servlet := a.Incidents[1]
	want := kaiak.Incident{ID: "eap8/eap7/javax-to-jakarta-import-00001/0", RuleID: "javax-to-jakarta-import-00001",
		FilePath: "src/main/java/com/example/HelloServlet.java", LineNumber: 5, Severity: "error",
		Description: "The package 'javax' has been replaced by 'jakarta'",
		Message:     "Replace the `javax.servlet` import statement with `jakarta.servlet`", Category: "mandatory"}
	meta := servlet.Metadata
	servlet.Metadata = nil
	if !reflect.DeepEqual(servlet, want) {
		t.Fatalf("got  %+v\nwant %+v", servlet, want)
	}
	if meta["ruleset"] != "eap8/eap7" || meta["effort"] != 1 || meta["code_snip"] == nil || meta["uri"] == nil ||
		len(meta["labels"].([]string)) != 2 || len(meta["links"].([]any)) != 1 || meta["variables"].(map[string]any)["kind"] != "Module" {
		t.Fatalf("metadata %v", meta)
	}
	// Without a workspace the paths stay as the analyzer wrote them.
	a, _ = kaiak.ConvertAnalysis(data, kaiak.ConvertOptions{})
	if a.Incidents[0].FilePath != "/opt/input/source/pom.xml" {
		t.Fatalf("path %q", a.Incidents[0].FilePath)
	}
	if _, err := kaiak.ConvertAnalysis([]byte("violations: {}"), kaiak.ConvertOptions{}); err == nil {
		t.Fatal("a mapping was taken for analyzer output")
	}
}
