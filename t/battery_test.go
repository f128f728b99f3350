package t

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

// The escape battery: the security scenarios (t02NN-security-*.txtar) and
// the Landlock subset (t07NN-landlock-*.txtar), run with the backend each
// forces. An attack is a line "# attack: <name>" followed by the negated
// assertion that it failed; a scenario without such tags counts each of its
// negated assertions (! stdout, ! stderr, ! exists, ! exec, ! grep) and
// each "same" (the host's files unchanged) as one attack. An attack counts as blocked only when its whole scenario passed.
// The test logs "N attacks, N blocked" (go test -v -run TestBattery).

var batteryName = regexp.MustCompile(`^t(02[0-9][0-9]-security|07[0-9][0-9]-landlock)-.*\.txtar$`)

// isBattery reports whether scenario file f belongs to the battery.
func isBattery(f string) bool { return batteryName.MatchString(filepath.Base(f)) }

// attack is one attack of a scenario: its name and line.
type attack struct {
	name string
	line int
}

// attacks returns the attacks of scenario text (see the convention above).
// It stops at the first archive file ("-- name --").
func attacks(text string) []attack {
	var tagged, negated []attack
	sc := bufio.NewScanner(strings.NewReader(text))
	pending := ""
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
			break
		}
		if name, ok := strings.CutPrefix(line, "# attack:"); ok {
			pending = strings.TrimSpace(name)
			continue
		}
		if strings.HasPrefix(line, "same ") {
			negated = append(negated, attack{name: line, line: n})
		}
		if strings.HasPrefix(line, "! ") {
			f := strings.Fields(line)
			switch f[1] {
			case "stdout", "stderr", "exists", "exec", "grep":
				negated = append(negated, attack{name: line, line: n})
				if pending != "" {
					tagged = append(tagged, attack{name: pending, line: n})
				}
			}
		}
		if !strings.HasPrefix(line, "#") {
			pending = ""
		}
	}
	if len(tagged) > 0 {
		return tagged
	}
	return negated
}

func TestAttacksConvention(t *testing.T) {
	got := attacks("# attack: one\n! stdout X\n# just a comment\n! stdout Y\n# attack: two\n\nexec true\n! exists f\n-- a --\n# attack: no\n! stdout Z\n")
	if len(got) != 1 || got[0].name != "one" || got[0].line != 2 {
		t.Errorf("tagged: got %+v", got)
	}
	got = attacks("exec x\n! stdout A\n! stderr B\n! exists c\n! exec d\nstdout e\nsame checkout .\n")
	if len(got) != 5 {
		t.Errorf("untagged: got %+v, want the 4 negated assertions and the same", got)
	}
}

func TestBattery(t *testing.T) {
	if _, err := exec.LookPath("bwrap"); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("bwrap is not installed; CI must install bubblewrap")
		}
		t.Skip("bwrap is not installed: apt-get install -y bubblewrap")
	}
	all, _ := filepath.Glob("t[0-9][0-9][0-9][0-9]-*.txtar")
	total, blocked, scenarios := 0, 0, 0
	for _, f := range all {
		if !isBattery(f) {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		as := attacks(string(b))
		if len(as) == 0 {
			t.Errorf("%s: a security scenario with no attack", f)
		}
		scenarios++
		total += len(as)
		name := strings.TrimSuffix(f, ".txtar")
		passed := t.Run(name, func(t *testing.T) {
			testscript.Run(t, testscript.Params{
				Files:               []string{f},
				RequireExplicitExec: true,
				Setup:               setup,
				Cmds:                map[string]func(ts *testscript.TestScript, neg bool, args []string){"lastrun": lastrun, "snap": snap, "same": same},
			})
		})
		if passed {
			blocked += len(as)
		} else {
			for _, a := range as {
				t.Logf("NOT blocked: %s:%d: %s", f, a.line, a.name)
			}
		}
	}
	t.Logf("escape battery: %d scenarios, %d attacks, %d blocked", scenarios, total, blocked)
	if blocked != total {
		t.Errorf("%d attacks, %d blocked", total, blocked)
	}
}
