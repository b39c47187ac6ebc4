package workspace

import (
	"context"
	"testing"
)

// openRefreshed opens a workspace at root with opts, brings its index up
// to date, and closes it when the test ends.
func openRefreshed(t *testing.T, root string, opts Options) *Workspace {
	t.Helper()
	w, err := Open(root, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { w.Close() })
	if _, _, err := w.Refresh(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	return w
}
