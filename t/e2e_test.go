package t

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/git-agent/git-agent/t/fakeapi"
)

// The agent e2e tests run the real CLIs (installed by t/agents/install.sh
// into $GIT_AGENT_E2E_AGENTS) through "git agent run" against the fake model
// API (t/fakeapi) on loopback. They skip locally without the CLIs and fail
// under CI=true.

// agentsDir returns the bin directory of the agent CLIs installed by
// t/agents/install.sh into $GIT_AGENT_E2E_AGENTS, or skips the test (fails
// it when CI=true) when bin is not installed there.
func agentsDir(t *testing.T, bin string) string {
	t.Helper()
	dir := os.Getenv("GIT_AGENT_E2E_AGENTS")
	p := filepath.Join(dir, "node_modules", ".bin", bin)
	if _, err := os.Stat(p); dir == "" || err != nil {
		msg := bin + " is not installed: run t/agents/install.sh <dir> and set GIT_AGENT_E2E_AGENTS=<dir>"
		if os.Getenv("CI") == "true" {
			t.Fatal(msg + " (CI must run the agent e2e tests)")
		}
		t.Skip(msg)
	}
	return filepath.Dir(p)
}

// e2e is one end-to-end run of a real agent CLI against the fake model API.
type e2e struct {
	tool   string
	env    []string // extra host variables; {url} is the fake API's URL
	script string
	// files are written under the user's HOME before the run (the agent's
	// own state, which git-agent copies in); {url} is replaced too.
	files map[string]string
	// args go before the tool in "git agent run -m <task> <args> <tool>".
	args []string
	// check is the greeting check's shell command (default: greetingCheck).
	check string
}

// greetingCheck passes when hello.txt holds exactly the greeting; when it
// does not, it says what it found (for the repair prompt).
const greetingCheck = `grep -qx 'hello from the agent' hello.txt || { echo "hello.txt says: $(cat hello.txt)"; exit 1; }`

// result is what one e2e run left behind.
type result struct {
	repo, out, id string
	err           error
	log           []fakeapi.Entry
	env           []string
	work          string
}

// run makes a fresh repository with a check, runs "git agent run -m" with
// the tool against a fake API serving the script, and returns what it left.
func (c e2e) run(t *testing.T) result {
	t.Helper()
	bin := agentsDir(t, c.tool)
	work := t.TempDir()
	home := filepath.Join(work, "home")
	r := result{repo: filepath.Join(work, "repo"), work: work}
	steps, perr := fakeapi.ParseScript(c.script)
	if perr != nil {
		t.Fatal(perr)
	}
	logFile, lerr := fakeapi.LogFile(filepath.Join(work, "fakeapi.jsonl"))
	if lerr != nil {
		t.Fatal(lerr)
	}
	defer logFile.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	srv, serr := fakeapi.Start(ctx, steps, logFile)
	if serr != nil {
		t.Fatal(serr)
	}
	r.env = []string{"HOME=" + home, "PATH=" + binDir + ":" + bin + ":" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C.UTF-8",
		"GIT_AUTHOR_NAME=Test User", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test User", "GIT_COMMITTER_EMAIL=test@example.com"}
	for _, e := range c.env {
		r.env = append(r.env, strings.ReplaceAll(e, "{url}", srv.URL))
	}
	os.MkdirAll(filepath.Join(r.repo, ".git-agent"), 0o755)
	os.MkdirAll(home, 0o755)
	for p, content := range c.files {
		os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o755)
		os.WriteFile(filepath.Join(home, p), []byte(strings.ReplaceAll(content, "{url}", srv.URL)), 0o644)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Test User\n\temail = test@example.com\n"), 0o644)
	check := c.check
	if check == "" {
		check = greetingCheck
	}
	q, _ := json.Marshal(check)
	os.WriteFile(filepath.Join(r.repo, ".git-agent", "config.toml"),
		[]byte("[[checks]]\nname = \"greeting\"\ncommand = "+string(q)+"\n"), 0o644)
	r.git(t, "init", "-q", "-b", "main")
	r.git(t, "add", "-A")
	r.git(t, "commit", "-qm", "init")
	args := append(append([]string{"run", "-m", "write hello.txt and commit it"}, c.args...), c.tool)
	cmd := exec.Command(filepath.Join(binDir, "git-agent"), args...)
	cmd.Dir, cmd.Env, cmd.Stdin = r.repo, r.env, nil
	b, err := cmd.CombinedOutput()
	r.out, r.err, r.id = string(b), err, lastLine(string(b))
	srv.Close()
	data, _ := os.ReadFile(filepath.Join(work, "fakeapi.jsonl"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e fakeapi.Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			r.log = append(r.log, e)
		}
	}
	r.record(t)
	for _, e := range r.log {
		t.Logf("fakeapi: %s %s [%s] step %d: %s", e.Path, e.Model, e.Section, e.Step, e.Reply)
	}
	return r
}

// record copies the agent's transcripts from the run's HOME into
// $GIT_AGENT_E2E_RECORD/<test name>/ when that is set: how the recorded
// transcripts in agents/testdata were made.
func (r result) record(t *testing.T) {
	dst := os.Getenv("GIT_AGENT_E2E_RECORD")
	if dst == "" || r.id == "" {
		return
	}
	home := filepath.Join(r.repo, ".git", "agent", "runs", r.id, "home")
	dst = filepath.Join(dst, strings.ReplaceAll(t.Name(), "/", "_"))
	filepath.WalkDir(home, func(p string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() || !strings.HasSuffix(p, ".jsonl") ||
			!strings.Contains(p, "/.claude/projects/") && !strings.Contains(p, "/.codex/sessions/") {
			return nil
		}
		b, _ := os.ReadFile(p)
		os.MkdirAll(dst, 0o755)
		t.Logf("recorded %s", p)
		return os.WriteFile(filepath.Join(dst, filepath.Base(p)), b, 0o644)
	})
}

// git runs git in the repository and returns its stdout.
func (r result) git(t *testing.T, args ...string) string {
	t.Helper()
	return r.cmd(t, "git", args...)
}

// agent runs "git agent" in the repository and returns its stdout.
func (r result) agent(t *testing.T, args ...string) string {
	t.Helper()
	return r.cmd(t, filepath.Join(binDir, "git-agent"), args...)
}

func (r result) cmd(t *testing.T, name string, args ...string) string {
	t.Helper()
	cmd := exec.Command(name, args...)
	cmd.Dir, cmd.Env = r.repo, r.env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	b, err := cmd.Output()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s%s", name, args, err, b, stderr.String())
	}
	return string(b)
}

// passed asserts that the run succeeded with the greeting check passing
// and that the fake API saw at least steps tool results.
func (r result) passed(t *testing.T, steps int) {
	t.Helper()
	if r.err != nil {
		t.Fatalf("git agent run: %v\n%s", r.err, tail(r.out, 4000))
	}
	if !strings.Contains(r.out, "check greeting: passed") {
		t.Fatalf("check did not pass:\n%s", tail(r.out, 4000))
	}
	most := 0
	for _, e := range r.log {
		most = max(most, len(e.Results))
	}
	if most < steps {
		t.Errorf("the fake API saw %d tool results, want %d", most, steps)
	}
}

// decision is one line of "git agent log --json" that is a decision.
type decision struct {
	Source    string `json:"source"`
	Attempt   int    `json:"attempt"`
	Decision  string `json:"decision"`
	Rationale string `json:"rationale"`
	Tool      string `json:"tool"`
}

// decisions returns the run's decisions from "git agent log --json".
func (r result) decisions(t *testing.T) []decision {
	t.Helper()
	var out []decision
	for _, l := range strings.Split(strings.TrimSpace(r.agent(t, "log", "--json", r.id)), "\n") {
		var d decision
		if json.Unmarshal([]byte(l), &d) == nil && d.Decision != "" {
			out = append(out, d)
		}
	}
	return out
}

// imported asserts that the run's decisions hold the agent's tool calls,
// in order, as imported from its transcript: tool name, a decision
// containing the summary, and the rationale the fake model said before.
func (r result) imported(t *testing.T, want []decision) {
	t.Helper()
	var got []decision
	for _, d := range r.decisions(t) {
		if d.Source == "agent" {
			got = append(got, d)
		}
	}
	for _, d := range got {
		t.Logf("imported: attempt %d %s %q why %q", d.Attempt, d.Tool, d.Decision, d.Rationale)
	}
	i := 0
	for _, d := range got {
		if i < len(want) && d.Tool == want[i].Tool && strings.Contains(d.Decision, want[i].Decision) &&
			d.Rationale == want[i].Rationale && (want[i].Attempt == 0 || d.Attempt == want[i].Attempt) {
			i++
		}
	}
	if i < len(want) {
		t.Errorf("imported decisions lack %+v; got:\n%+v", want[i], got)
	}
}

// script writes the greeting, commits it, and ends; each call has a
// rationale.
const script = `why Writing the greeting first.
write hello.txt hello from the agent\n
why Now committing it.
bash git add hello.txt && git commit -qm 'agent: say hello'
say done
`

// agentCommit asserts that the run's branch holds a commit with subject.
func (r result) agentCommit(t *testing.T, subject string) {
	t.Helper()
	if b := r.git(t, "log", "--format=%s", "agent/"+r.id); !strings.Contains(b, "\n"+subject+"\n") {
		t.Errorf("branch lacks the agent's commit %q:\n%s", subject, b)
	}
}

func TestE2EClaude(t *testing.T) {
	r := e2e{tool: "claude", script: script, env: []string{"ANTHROPIC_BASE_URL={url}", "ANTHROPIC_API_KEY=fake"}}.run(t)
	r.passed(t, 2)
	r.agentCommit(t, "agent: say hello")
	r.imported(t, []decision{{Tool: "Write", Decision: "hello.txt", Rationale: "Writing the greeting first."},
		{Tool: "Bash", Decision: "git add hello.txt && git commit", Rationale: "Now committing it."}})
}

// TestE2ECodex also proves that the user's ~/.codex/config.toml reaches
// the run: the fake API is configured there, as a model provider.
func TestE2ECodex(t *testing.T) {
	r := e2e{tool: "codex", script: script, env: []string{"OPENAI_API_KEY=fake"}, files: map[string]string{
		".codex/config.toml": codexConfig}}.run(t)
	r.passed(t, 2)
	r.agentCommit(t, "agent: say hello")
	r.imported(t, []decision{{Tool: "exec_command", Decision: "hello.txt", Rationale: "Writing the greeting first."},
		{Tool: "exec_command", Decision: "git add hello.txt && git commit", Rationale: "Now committing it."}})
}

// codexConfig points Codex at the fake API as a model provider.
const codexConfig = "model_provider = \"fake\"\nmodel = \"gpt-fake\"\n[model_providers.fake]\nname = \"fake\"\n" +
	"base_url = \"{url}/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n"

// lastLine returns the run id: the line of out that is only [0-9a-z].
func lastLine(out string) string {
	for _, l := range strings.Split(out, "\n") {
		if len(l) >= 8 && len(l) <= 16 && strings.Trim(l, "0123456789abcdefghijklmnopqrstuvwxyz") == "" {
			return l
		}
	}
	return ""
}

func tail(s string, n int) string {
	if len(s) > n {
		return s[len(s)-n:]
	}
	return s
}

// TestE2EPi configures the fake API the way a pi user would, as a custom
// Anthropic Messages provider in ~/.pi/agent/models.json with the default
// model in settings.json; the state copy must carry both into the run.
func TestE2EPi(t *testing.T) {
	r := e2e{tool: "pi", script: script, files: map[string]string{
		".pi/agent/models.json": `{"providers":{"fake":{"baseUrl":"{url}","api":"anthropic-messages","apiKey":"fake",` +
			`"models":[{"id":"claude-fake"}]}}}`,
		".pi/agent/settings.json": `{"defaultProvider":"fake","defaultModel":"claude-fake"}`}}.run(t)
	r.passed(t, 2)
	r.agentCommit(t, "agent: say hello")
}

// TestE2EOpencode configures the fake API the way an opencode user would,
// as a custom provider (the bundled @ai-sdk/anthropic package) in
// $XDG_CONFIG_HOME/opencode/opencode.json; the state copy must carry it in.
// It runs with the network limited to the fake API's host: opencode must
// reach the fake through git-agent's proxy and still work while its
// start-up contact to the npm registry is refused, and the agent's own
// request to another host must fail. A write to /tmp (outside the
// worktree: opencode's run asks, and auto-rejects without --auto) works.
func TestE2EOpencode(t *testing.T) {
	probe := "curl -sS -m 20 -o /dev/null https://example.com/ && echo REACHED || echo REFUSED"
	r := e2e{tool: "opencode", args: []string{"--network", "127.0.0.1"},
		script: strings.Replace(script, "say done", "write /tmp/scratch.txt scratch\nbash "+probe+"\nsay done", 1),
		files: map[string]string{".config/opencode/opencode.json": `{"model":"fake/claude-fake","provider":{"fake":{` +
			`"npm":"@ai-sdk/anthropic","name":"Fake","options":{"baseURL":"{url}/v1","apiKey":"fake"},` +
			`"models":{"claude-fake":{"name":"Claude Fake","tool_call":true}}}}}`}}.run(t)
	r.passed(t, 2)
	r.agentCommit(t, "agent: say hello")
	var last fakeapi.Entry
	for _, e := range r.log {
		if len(e.Results) >= len(last.Results) {
			last = e
		}
	}
	res := last.Results
	if n := len(res); n != 4 || !strings.Contains(res[2], "Wrote file") || !strings.Contains(res[3], "REFUSED") || strings.Contains(res[3], "REACHED") {
		t.Errorf("want the /tmp write done and the request to example.com refused, got %q", res)
	}
	if b := r.agent(t, "log", r.id); !regexp.MustCompile(`network: allowed 127\.0\.0\.1 \(\d+\); denied .*registry\.npmjs\.org`).MatchString(b) {
		t.Errorf("git agent log %s: want the proxy's allowed 127.0.0.1 and denied registry.npmjs.org:\n%s", r.id, b)
	}
}
