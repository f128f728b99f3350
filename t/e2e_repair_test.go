package t

import (
	"strings"
	"testing"
)

// repairScript gets the greeting wrong on attempt 1 and commits it; the
// repair prompt of attempt 2 (a continued session) gets its own section,
// which fixes the file and commits again.
const repairScript = `why Writing the greeting.
write hello.txt hello from the agnet\n
why Committing it.
bash git add hello.txt && git commit -qm 'agent: say hello'
say done
when git-agent: repair attempt 2
why The check says hello.txt has a typo; fixing it.
write hello.txt hello from the agent\n
why Committing the fix.
bash git commit -qam 'agent: fix the greeting'
say fixed
`

// TestE2EClaudeRepair: the first attempt leaves the check failing; git-agent
// runs Claude Code's repair template (--continue), which must continue the
// SAME session in the run's persistent HOME: the fake API sees the first
// attempt's tool results and then the repair prompt naming the failing check
// and its output. Attempt 2 fixes it and the run ends passed.
func TestE2EClaudeRepair(t *testing.T) {
	r := e2e{tool: "claude", script: repairScript, env: []string{"ANTHROPIC_BASE_URL={url}", "ANTHROPIC_API_KEY=fake"}}.run(t)
	r.passed(t, 4)
	if !strings.Contains(r.out, "attempt 1 failed; repairing (attempt 2 of 3)") {
		t.Errorf("no repair attempt:\n%s", tail(r.out, 4000))
	}
	var repair []string
	for _, e := range r.log {
		if e.Section != "" {
			repair = append(repair, e.Prompt)
			// The same session: attempt 1's two tool results come first.
			if len(e.Results) < 2 || e.Results[0] == "" {
				t.Errorf("repair request without the first attempt's results (not the same session): %+v", e)
			}
		}
	}
	if len(repair) < 3 {
		t.Fatalf("the fake API saw %d repair requests, want 3 (fix, commit, end)", len(repair))
	}
	for _, w := range []string{`check "greeting" failed`, "exit code: 1", "hello.txt says: hello from the agnet"} {
		if !strings.Contains(repair[0], w) {
			t.Errorf("the repair prompt lacks %q:\n%s", w, repair[0])
		}
	}
	r.agentCommit(t, "agent: say hello")
	r.agentCommit(t, "agent: fix the greeting")
	if show := r.agent(t, "show", r.id); !strings.Contains(show, "passed") {
		t.Errorf("git agent show:\n%s", show)
	}
	log := r.agent(t, "log", r.id)
	for _, w := range []string{"attempt 1", "attempt 2", "✗ greeting", "✓ greeting", "hello.txt says: hello from the agnet",
		"The check says hello.txt has a typo; fixing it."} {
		if !strings.Contains(log, w) {
			t.Errorf("git agent log lacks %q:\n%s", w, log)
		}
	}
	r.imported(t, []decision{
		{Attempt: 1, Tool: "Write", Decision: "hello.txt", Rationale: "Writing the greeting."},
		{Attempt: 1, Tool: "Bash", Decision: "git add hello.txt", Rationale: "Committing it."},
		{Attempt: 2, Tool: "Write", Decision: "hello.txt", Rationale: "The check says hello.txt has a typo; fixing it."},
		{Attempt: 2, Tool: "Bash", Decision: "git commit -qam", Rationale: "Committing the fix."}})
}

// TestE2ECodexRepair: the same with Codex CLI, whose repair template is
// "exec resume --last": the session in the run's CODEX_HOME goes on.
func TestE2ECodexRepair(t *testing.T) {
	r := e2e{tool: "codex", script: repairScript, env: []string{"OPENAI_API_KEY=fake"},
		files: map[string]string{".codex/config.toml": codexConfig}}.run(t)
	r.passed(t, 4)
	n := 0
	for _, e := range r.log {
		if e.Section != "" {
			n++
			if len(e.Results) < 2 {
				t.Errorf("repair request without the first attempt's results (not the same session): %+v", e)
			}
			if n == 1 && !strings.Contains(e.Prompt, "hello.txt says: hello from the agnet") {
				t.Errorf("the repair prompt lacks the check's output:\n%s", e.Prompt)
			}
		}
	}
	if n < 3 {
		t.Fatalf("the fake API saw %d repair requests, want 3", n)
	}
	r.agentCommit(t, "agent: fix the greeting")
	r.imported(t, []decision{
		{Attempt: 1, Tool: "exec_command", Decision: "hello.txt", Rationale: "Writing the greeting."},
		{Attempt: 2, Tool: "exec_command", Decision: "hello.txt", Rationale: "The check says hello.txt has a typo; fixing it."},
		{Attempt: 2, Tool: "exec_command", Decision: "git commit -qam", Rationale: "Committing the fix."}})
}
