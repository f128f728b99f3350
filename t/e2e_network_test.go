package t

import (
	"strings"
	"testing"
)

// netScript tries two hosts that are not on the list from the agent's
// shell, then writes and commits the greeting.
const netScript = `why Checking what the network lets through.
bash curl -sS -m 10 http://example.com/ ; curl -sS -m 10 http://10.0.0.1/ ; echo CURL-DONE
write hello.txt hello from the agent\n
bash git add hello.txt && git commit -qm 'agent: say hello'
say done
`

// TestE2EClaudeAllowlist runs Claude Code with network = the fake API's
// host only: the sandbox has its own network namespace, so Claude Code can
// reach the fake API (on the host's loopback) only through git-agent's
// proxy, and the agent's requests to other hosts are refused.
func TestE2EClaudeAllowlist(t *testing.T) {
	r := e2e{tool: "claude", script: netScript, args: []string{"--network", "127.0.0.1"},
		env: []string{"ANTHROPIC_BASE_URL={url}", "ANTHROPIC_API_KEY=fake"}}.run(t)
	r.passed(t, 3)
	var res string
	for _, e := range r.log {
		if len(e.Results) > 0 {
			res = e.Results[0]
		}
	}
	for _, w := range []string{"blocked by git-agent policy: host example.com", "blocked by git-agent policy: host 10.0.0.1", "CURL-DONE"} {
		if !strings.Contains(res, w) {
			t.Errorf("the curl tool result lacks %q:\n%s", w, res)
		}
	}
	// The proxy's summary is a host decision: Claude Code's requests to the
	// fake API went through it, the two others were refused.
	found := false
	for _, d := range r.decisions(t) {
		if d.Source == "host" && strings.Contains(d.Decision, "network") {
			t.Logf("host decision: %s", d.Decision)
			found = found || strings.Contains(d.Decision, "allowed 127.0.0.1 (") &&
				strings.Contains(d.Decision, "10.0.0.1 (1)") && strings.Contains(d.Decision, "example.com (1)")
		}
	}
	if !found {
		t.Errorf("no host decision says the proxy allowed 127.0.0.1 and denied example.com and 10.0.0.1")
	}
	r.agentCommit(t, "agent: say hello")
}
