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
	// network, when set, is passed as "git agent run --network".
	network string
	// after, when set, runs after the common assertions with the repo,
	// the run id and the fake API's log.
	after func(t *testing.T, repo, id string, log []fakeapi.Entry)
}

// run makes a fresh repository with a check, runs "git agent run -m" with
// the tool against a fake API serving the script, and returns the repo,
// git-agent's combined output, its error, and the fake API's request log.
func (c e2e) run(t *testing.T) (repo, out string, err error, log []fakeapi.Entry) {
	t.Helper()
	bin := agentsDir(t, c.tool)
	work := t.TempDir()
	home := filepath.Join(work, "home")
	repo = filepath.Join(work, "repo")
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
	env := []string{"HOME=" + home, "PATH=" + binDir + ":" + bin + ":" + os.Getenv("PATH"),
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"), "GIT_CONFIG_NOSYSTEM=1", "LANG=C.UTF-8",
		"GIT_AUTHOR_NAME=Test User", "GIT_AUTHOR_EMAIL=test@example.com",
		"GIT_COMMITTER_NAME=Test User", "GIT_COMMITTER_EMAIL=test@example.com"}
	for _, e := range c.env {
		env = append(env, strings.ReplaceAll(e, "{url}", srv.URL))
	}
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = repo, env
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, b)
		}
	}
	os.MkdirAll(filepath.Join(repo, ".git-agent"), 0o755)
	os.MkdirAll(home, 0o755)
	for p, content := range c.files {
		os.MkdirAll(filepath.Dir(filepath.Join(home, p)), 0o755)
		os.WriteFile(filepath.Join(home, p), []byte(strings.ReplaceAll(content, "{url}", srv.URL)), 0o644)
	}
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[user]\n\tname = Test User\n\temail = test@example.com\n"), 0o644)
	os.WriteFile(filepath.Join(repo, ".git-agent", "config.toml"),
		[]byte("[[checks]]\nname = \"greeting\"\ncommand = \"grep -qx 'hello from the agent' hello.txt\"\n"), 0o644)
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "init")
	args := []string{"run", "-m", "write hello.txt and commit it"}
	if c.network != "" {
		args = append(args, "--network", c.network)
	}
	cmd := exec.Command(filepath.Join(binDir, "git-agent"), append(args, c.tool)...)
	cmd.Dir, cmd.Env, cmd.Stdin = repo, env, nil
	b, err := cmd.CombinedOutput()
	srv.Close()
	data, _ := os.ReadFile(filepath.Join(work, "fakeapi.jsonl"))
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var e fakeapi.Entry
		if json.Unmarshal(sc.Bytes(), &e) == nil {
			log = append(log, e)
		}
	}
	return repo, string(b), err, log
}

// check asserts that the run passed, the branch holds the agent's own
// commit, and the fake API saw the script through to its end.
func (c e2e) check(t *testing.T) {
	repo, out, err, log := c.run(t)
	for _, e := range log {
		t.Logf("fakeapi: %s %s step %d: %s", e.Path, e.Model, e.Step, e.Reply)
	}
	t.Logf("git agent run %s:\n%s", c.tool, tail(out, 4000))
	if err != nil {
		t.Fatalf("git agent run %s: %v", c.tool, err)
	}
	if !strings.Contains(out, "check greeting: passed") {
		t.Fatalf("check did not pass:\n%s", tail(out, 4000))
	}
	cmd := exec.Command("git", "log", "--format=%s", "agent/"+lastLine(out))
	cmd.Dir = repo
	b, _ := cmd.Output()
	if !strings.Contains(string(b), "\nagent: say hello\n") {
		t.Errorf("branch lacks the agent's commit:\n%s", b)
	}
	steps := 0
	for _, e := range log {
		if e.Step > steps {
			steps = e.Step
		}
	}
	if steps < 2 {
		t.Errorf("the fake API saw %d tool results, want 2 (write, commit)", steps)
	}
	if c.after != nil {
		c.after(t, repo, lastLine(out), log)
	}
}

// script writes the greeting, commits it, and ends.
const script = "write hello.txt hello from the agent\\n\nbash git add hello.txt && git commit -qm 'agent: say hello'\nsay done\n"

func TestE2EClaude(t *testing.T) {
	e2e{tool: "claude", script: script, env: []string{"ANTHROPIC_BASE_URL={url}", "ANTHROPIC_API_KEY=fake"}}.check(t)
}

// TestE2ECodex also proves that the user's ~/.codex/config.toml reaches
// the run: the fake API is configured there, as a model provider.
func TestE2ECodex(t *testing.T) {
	e2e{tool: "codex", script: script, env: []string{"OPENAI_API_KEY=fake"}, files: map[string]string{
		".codex/config.toml": "model_provider = \"fake\"\nmodel = \"gpt-fake\"\n[model_providers.fake]\nname = \"fake\"\n" +
			"base_url = \"{url}/v1\"\nenv_key = \"OPENAI_API_KEY\"\nwire_api = \"responses\"\n"}}.check(t)
}

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
	e2e{tool: "pi", script: script, files: map[string]string{
		".pi/agent/models.json": `{"providers":{"fake":{"baseUrl":"{url}","api":"anthropic-messages","apiKey":"fake",` +
			`"models":[{"id":"claude-fake"}]}}}`,
		".pi/agent/settings.json": `{"defaultProvider":"fake","defaultModel":"claude-fake"}`}}.check(t)
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
	e2e{tool: "opencode", network: "127.0.0.1",
		script: strings.Replace(script, "say done", "write /tmp/scratch.txt scratch\nbash "+probe+"\nsay done", 1),
		files: map[string]string{".config/opencode/opencode.json": `{"model":"fake/claude-fake","provider":{"fake":{` +
			`"npm":"@ai-sdk/anthropic","name":"Fake","options":{"baseURL":"{url}/v1","apiKey":"fake"},` +
			`"models":{"claude-fake":{"name":"Claude Fake","tool_call":true}}}}}`},
		after: func(t *testing.T, repo, id string, log []fakeapi.Entry) {
			var last fakeapi.Entry
			for _, e := range log {
				if e.Step >= last.Step {
					last = e
				}
			}
			r := last.Results
			if n := len(r); n != 4 || !strings.Contains(r[2], "Wrote file") || !strings.Contains(r[3], "REFUSED") || strings.Contains(r[3], "REACHED") {
				t.Errorf("want the /tmp write done and the request to example.com refused, got %q", r)
			}
			cmd := exec.Command(filepath.Join(binDir, "git-agent"), "log", id)
			cmd.Dir = repo
			b, err := cmd.CombinedOutput()
			if err != nil || !regexp.MustCompile(`network: allowed 127\.0\.0\.1 \(\d+\); denied .*registry\.npmjs\.org`).Match(b) {
				t.Errorf("git agent log %s: %v: want the proxy's allowed 127.0.0.1 and denied registry.npmjs.org:\n%s", id, err, b)
			}
		}}.check(t)
}
