package t

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The escape battery: the security scenarios (t02NN-security-*.txtar) and
// the Landlock subset (t07NN-landlock-*.txtar). It runs twice:
//
//   - bwrap: every t02 scenario with GIT_AGENT_SANDBOX=bwrap;
//   - landlock: every t02 scenario again with GIT_AGENT_SANDBOX=landlock
//     and the testscript condition [landlock] true, plus the t07 scenarios
//     (which force --sandbox landlock themselves).
//
// An attack is a line "# attack: <name>" followed by the negated assertion
// that it failed; a scenario without such tags counts each of its negated
// assertions (! stdout, ! stderr, ! exists, ! exec, ! grep) and each "same"
// (the host's files unchanged) as one attack. An attack counts as blocked
// only when its whole scenario passed.
//
// What Landlock cannot block is tagged "# landlock: no (<reason>)": in the
// scenario's leading comment block the whole scenario does not apply (it is
// not run in the landlock pass); among an attack's comments only that
// attack does not apply, and its assertion must then be conditioned
// "[!landlock] ! ...". The test logs
// "escape battery (bwrap): N attacks, N blocked" and
// "escape battery (landlock): M attacks, M blocked, K not applicable"
// (go test -v -run TestBattery).

var batteryName = regexp.MustCompile(`^t(02[0-9][0-9]-security|07[0-9][0-9]-landlock)-.*\.txtar$`)

// isBattery reports whether scenario file f belongs to the battery.
func isBattery(f string) bool { return batteryName.MatchString(filepath.Base(f)) }

// landlockOnly reports whether scenario file f forces Landlock itself (t07).
func landlockOnly(f string) bool { return strings.HasPrefix(filepath.Base(f), "t07") }

// attack is one attack of a scenario: its name, line, and why it does not
// apply under Landlock ("" when it does).
type attack struct {
	name     string
	line     int
	landlock string
	guarded  bool // its assertion is conditioned [!landlock]
}

// scenario is what the battery reads from a scenario file: its attacks and
// why the whole scenario does not apply under Landlock ("" when it does).
type scenario struct {
	attacks  []attack
	landlock string
}

var landlockTag = regexp.MustCompile(`^#\s*landlock:\s*no\s*\((.+)\)\s*$`)

// parseScenario reads a scenario's text (see the convention above). It
// stops at the first archive file ("-- name --").
func parseScenario(text string) scenario {
	var s scenario
	var tagged, negated []attack
	sc := bufio.NewScanner(strings.NewReader(text))
	pending, pendingLL := "", ""
	header := true
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			break
		}
		if m := landlockTag.FindStringSubmatch(line); m != nil {
			if header {
				s.landlock = m[1]
			} else {
				pendingLL = m[1]
			}
			continue
		}
		if name, ok := strings.CutPrefix(line, "# attack:"); ok {
			header = false
			pending = strings.TrimSpace(name)
			continue
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			header = false
		}
		cmd, guarded := strings.CutPrefix(line, "[!landlock] ")
		cmd = strings.TrimSpace(cmd)
		counted := strings.HasPrefix(cmd, "same ")
		if f := strings.Fields(cmd); len(f) > 1 && f[0] == "!" {
			switch f[1] {
			case "stdout", "stderr", "exists", "exec", "grep":
				counted = true
			}
		}
		if counted {
			negated = append(negated, attack{name: cmd, line: n, landlock: pendingLL, guarded: guarded})
			if pending != "" && !strings.HasPrefix(cmd, "same ") {
				tagged = append(tagged, attack{name: pending, line: n, landlock: pendingLL, guarded: guarded})
			}
			pendingLL = ""
		}
		if line != "" && !strings.HasPrefix(line, "#") {
			pending = ""
		}
	}
	s.attacks = negated
	if len(tagged) > 0 {
		s.attacks = tagged
	}
	return s
}

func TestAttacksConvention(t *testing.T) {
	got := parseScenario("# attack: one\n! stdout X\n# just a comment\n! stdout Y\n# attack: two\n\nexec true\n! exists f\n-- a --\n# attack: no\n! stdout Z\n")
	if len(got.attacks) != 1 || got.attacks[0].name != "one" || got.attacks[0].line != 2 || got.landlock != "" {
		t.Errorf("tagged: got %+v", got)
	}
	got = parseScenario("exec x\n! stdout A\n! stderr B\n! exists c\n! exec d\nstdout e\nsame checkout .\n")
	if len(got.attacks) != 5 {
		t.Errorf("untagged: got %+v, want the 4 negated assertions and the same", got)
	}
	got = parseScenario("# Title.\n# landlock: no (no PID namespace)\n\nexec x\n! stdout A\n")
	if got.landlock != "no PID namespace" || len(got.attacks) != 1 || got.attacks[0].landlock != "" {
		t.Errorf("scenario tag: got %+v", got)
	}
	got = parseScenario("exec x\n# attack: one\n# landlock: no (host lists)\n[!landlock] ! stdout A\n# attack: two\n! stdout B\n")
	if len(got.attacks) != 2 || got.attacks[0].landlock != "host lists" || !got.attacks[0].guarded || got.attacks[1].landlock != "" || got.attacks[1].guarded {
		t.Errorf("attack tag: got %+v", got)
	}
}

// batteryPass is one run of the battery with one backend.
type batteryPass struct {
	backend                       string
	attacks, blocked, notApplying int
}

func TestBattery(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is not installed; CI must install bubblewrap")
		}
		t.Skip("bwrap is not installed: apt-get install -y bubblewrap")
	}
	all, _ := filepath.Glob("t[0-9][0-9][0-9][0-9]-*.txtar")
	var files []string
	scenarios := map[string]scenario{}
	for _, f := range all {
		if !isBattery(f) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		s := parseScenario(string(b))
		if len(s.attacks) == 0 {
			t.Errorf("%s: a security scenario with no attack", f)
		}
		for _, a := range s.attacks {
			if (a.landlock != "") != a.guarded {
				t.Errorf("%s:%d: an attack tagged \"# landlock: no (...)\" must be conditioned [!landlock], and only such an attack", f, a.line)
			}
		}
		files = append(files, f)
		scenarios[f] = s
	}
	for _, backend := range []string{"bwrap", "landlock"} {
		p := batteryPass{backend: backend}
		t.Run(backend, func(t *testing.T) {
			for _, f := range files {
				s := scenarios[f]
				if landlockOnly(f) && backend != "landlock" {
					continue
				}
				var apply []attack
				for _, a := range s.attacks {
					if backend == "landlock" && (s.landlock != "" || a.landlock != "") {
						p.notApplying++
						continue
					}
					apply = append(apply, a)
				}
				if len(apply) == 0 {
					continue
				}
				p.attacks += len(apply)
				if runScenario(t, f, backend) {
					p.blocked += len(apply)
					continue
				}
				for _, a := range apply {
					t.Logf("NOT blocked (%s): %s:%d: %s", backend, f, a.line, a.name)
				}
			}
		})
		if backend == "landlock" {
			t.Logf("escape battery (%s): %d attacks, %d blocked, %d not applicable", backend, p.attacks, p.blocked, p.notApplying)
		} else {
			t.Logf("escape battery (%s): %d attacks, %d blocked", backend, p.attacks, p.blocked)
		}
		if p.blocked != p.attacks {
			t.Errorf("%s: %d attacks, %d blocked", backend, p.attacks, p.blocked)
		}
	}
}

// runScenario runs scenario file f with GIT_AGENT_SANDBOX=backend (and the
// condition [landlock] true for "landlock") and reports whether it passed.
func runScenario(t *testing.T, f, backend string) bool {
	name := strings.TrimSuffix(f, ".txtar")
	return t.Run(name, func(t *testing.T) {
		testscript.Run(t, testscript.Params{
			Files:               []string{f},
			RequireExplicitExec: true,
			Setup: func(env *testscript.Env) error {
				env.Setenv("GIT_AGENT_SANDBOX", backend)
				return setup(env)
			},
			Condition: func(cond string) (bool, error) {
				if cond == "landlock" {
					return backend == "landlock", nil
				}
				return false, fmt.Errorf("unknown condition %q", cond)
			},
			Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){"lastrun": lastrun, "snap": snap, "same": same, "httpserve": httpserve},
		})
	})
}
