package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/kast-dev/kast/analysis/scip"
	"github.com/kast-dev/kast/analysis/workspace"
)

// writeSCIP exports the indexed workspace to path as a SCIP index, through
// a temporary file beside it so that a failed run leaves no half index.
func writeSCIP(cmd *cobra.Command, ws *workspace.Workspace, path string) error {
	start := time.Now()
	tmp, err := os.CreateTemp(filepath.Dir(path), ".kast-scip-*")
	if err != nil {
		return fmt.Errorf("writing the SCIP index: %w", err)
	}
	defer os.Remove(tmp.Name())
	sess := workspace.NewSession()
	sess.AddRoot(ws)
	st, err := scip.Export(cmd.Context(), sess.Snapshot(nil), ws.Root, tmp, scip.Options{ToolVersion: version})
	if err == nil {
		err = tmp.Chmod(0o644) // an index to upload, not a secret
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("writing the SCIP index: %w", err)
	}
	fmt.Fprintf(cmd.ErrOrStderr(), "kast: SCIP index %s: %d documents, %d occurrences, %d symbols, %d relationships in %s\n",
		path, st.Documents, st.Occurrences, st.Symbols, st.Relationships, humanDuration(time.Since(start)))
	return nil
}
