package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	scipb "github.com/sourcegraph/scip/bindings/go/scip"
	"google.golang.org/protobuf/proto"
)

// kast index --scip writes a SCIP index of the sample workspace that the
// SCIP bindings read back: every indexed file a document, with
// definitions and the sample's Kotlin package in its symbols. (The SCIP
// CLI's checks run in analysis/scip.)
func TestIndexWritesSCIP(t *testing.T) {
	root, env := sampleWorkspace(t)
	out := filepath.Join(t.TempDir(), "index.scip")
	cmd := kastCmd(t, "index", "--scip", out, root)
	cmd.Dir, cmd.Env = root, env
	msg, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(msg), "kast: SCIP index "+out) {
		t.Fatalf("kast index --scip: %v\n%s", err, msg)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var ix scipb.Index
	if err := proto.Unmarshal(data, &ix); err != nil {
		t.Fatal(err)
	}
	if ix.Metadata.GetToolInfo().GetName() != "kast" || len(ix.Documents) != 9 {
		t.Fatalf("tool %q, %d documents", ix.Metadata.GetToolInfo().GetName(), len(ix.Documents))
	}
	defs, refs := 0, 0
	for _, d := range ix.Documents {
		for _, o := range d.Occurrences {
			if o.SymbolRoles&int32(scipb.SymbolRole_Definition) != 0 {
				defs++
			} else if !scipb.IsLocalSymbol(o.Symbol) && strings.Contains(o.Symbol, " sample/") {
				refs++
			}
		}
	}
	if defs == 0 || refs == 0 {
		t.Errorf("%d definitions, %d references to the sample package", defs, refs)
	}
}
