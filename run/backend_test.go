package run

import (
	"testing"

	"github.com/git-agent/git-agent/sandbox"
)

func TestChooseBackendPrecedence(t *testing.T) {
	t.Setenv(sandbox.TestBlockUsernsEnv, "1")
	if sandbox.LandlockABI() < 1 {
		t.Skip("this kernel has no Landlock")
	}
	for _, tc := range []struct{ flag, configured, want string }{
		{"", "", sandbox.BackendLandlock},             // auto falls back
		{"", "none", sandbox.BackendNone},             // config
		{"landlock", "none", sandbox.BackendLandlock}, // the flag wins
		{"none", "landlock", sandbox.BackendNone},
	} {
		c, err := chooseBackend(t.Context(), tc.flag, tc.configured)
		if err != nil || c.Backend != tc.want {
			t.Errorf("flag %q config %q: %+v, %v; want %s", tc.flag, tc.configured, c, err, tc.want)
		}
	}
	if _, err := chooseBackend(t.Context(), "bwrap", ""); err == nil {
		t.Error("bwrap chosen with user namespaces blocked")
	}
}
