package servertest

import (
	"fmt"
	"testing"
)

// recordingTB notes what a helper asked of its test instead of doing it.
type recordingTB struct {
	testing.TB
	fatal, skip string
}

func (r *recordingTB) Fatalf(format string, args ...any) { r.fatal = fmt.Sprintf(format, args...) }
func (r *recordingTB) Skipf(format string, args ...any)  { r.skip = fmt.Sprintf(format, args...) }

func TestSharedSkipsOrFailsInCI(t *testing.T) {
	t.Setenv("CI", "")
	dev := &recordingTB{TB: t}
	Shared(dev, "no/such/reference")
	if dev.skip == "" || dev.fatal != "" {
		t.Errorf("without CI a missing shared folder skips: %+v", dev)
	}
	t.Setenv("CI", "true")
	ci := &recordingTB{TB: t}
	Shared(ci, "no/such/reference")
	if ci.fatal == "" {
		t.Errorf("in CI a missing shared folder fails: %+v", ci)
	}
}
