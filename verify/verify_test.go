package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/git-agent/git-agent/config"
	"github.com/git-agent/git-agent/jsonl"
)

// fakeExec interprets argv[0]: "ok", "fail" (exit 3), "kill" (SIGKILL),
// "hang" (blocks until ctx done), "boom" (sandbox error), "big" (prints
// argv[1] bytes).
func fakeExec(ran *[]string, mu *sync.Mutex) Exec {
	return func(ctx context.Context, argv, env []string, out io.Writer) (int, string, error) {
		mu.Lock()
		*ran = append(*ran, argv[0])
		mu.Unlock()
		fmt.Fprintf(out, "running %s env=%v\n", argv[0], env)
		switch argv[0] {
		case "ok":
			return 0, "", nil
		case "fail":
			return 3, "", nil
		case "kill":
			return -1, "SIGKILL", nil
		case "hang":
			<-ctx.Done()
			return -1, "SIGKILL", nil
		case "boom":
			return 0, "", errors.New("bwrap: setting up uid map: Permission denied")
		case "big":
			var n int
			fmt.Sscan(argv[1], &n)
			out.Write(bytes.Repeat([]byte("é"), n/2))
			out.Write([]byte("END"))
			return 0, "", nil
		}
		return 127, "", nil
	}
}

func checks(names ...string) []config.Check {
	var cs []config.Check
	for _, n := range names {
		cs = append(cs, config.Check{Name: n, Argv: []string{n}, Timeout: time.Second, Env: []string{"A=1"}})
	}
	return cs
}

func TestRunFailFast(t *testing.T) {
	tests := []struct {
		names   []string
		ran     string
		skipped string
		passed  bool
	}{
		{nil, "", "", true},
		{[]string{"ok", "ok"}, "ok ok", "", true},
		{[]string{"ok", "fail", "ok", "ok"}, "ok fail", "ok ok", false},
		{[]string{"kill", "ok"}, "kill", "ok", false},
		{[]string{"boom", "ok"}, "boom", "ok", false},
	}
	for _, tt := range tests {
		t.Run(strings.Join(tt.names, ","), func(t *testing.T) {
			var ran []string
			var live bytes.Buffer
			res := Run(context.Background(), checks(tt.names...), fakeExec(&ran, &sync.Mutex{}), &live)
			if len(res) != len(tt.names) {
				t.Fatalf("%d results for %d checks", len(res), len(tt.names))
			}
			if got := strings.Join(ran, " "); got != tt.ran {
				t.Errorf("ran %q, want %q", got, tt.ran)
			}
			var sk []string
			for _, r := range res {
				if r.Skipped {
					sk = append(sk, r.Name)
					if r.ExitCode != -1 || r.OutputTail != "" {
						t.Errorf("skipped result %+v", r)
					}
				}
			}
			if got := strings.Join(sk, " "); got != tt.skipped {
				t.Errorf("skipped %q, want %q", got, tt.skipped)
			}
			if Passed(res) != tt.passed {
				t.Errorf("Passed = %v", !tt.passed)
			}
			if len(tt.names) > 0 && !strings.Contains(live.String(), "running "+tt.names[0]+" env=[A=1]") {
				t.Errorf("live output = %q", live.String())
			}
		})
	}
}

func TestRunResults(t *testing.T) {
	var ran []string
	res := Run(context.Background(), checks("fail"), fakeExec(&ran, &sync.Mutex{}), nil)
	if r := res[0]; r.ExitCode != 3 || r.TimedOut || r.Skipped || r.OutputTail != "running fail env=[A=1]\n" || r.Command != "fail" {
		t.Errorf("fail result = %+v", r)
	}
	res = Run(context.Background(), checks("boom"), fakeExec(&ran, &sync.Mutex{}), nil)
	if r := res[0]; r.ExitCode != -1 || !strings.Contains(r.OutputTail, "git-agent: sandbox error: bwrap: setting up uid map") {
		t.Errorf("boom result = %+v", r)
	}
	if f, ok := FirstFailure(res); !ok || f.Name != "boom" {
		t.Errorf("FirstFailure = %+v, %v", f, ok)
	}
}

func TestRunTimeout(t *testing.T) {
	var ran []string
	cs := checks("hang", "ok")
	cs[0].Timeout = 50 * time.Millisecond
	start := time.Now()
	res := Run(context.Background(), cs, fakeExec(&ran, &sync.Mutex{}), nil)
	if el := time.Since(start); el > time.Minute { // a bound, not a speed assertion
		t.Fatalf("the timeout did not stop the check: took %v", el)
	}
	if r := res[0]; !r.TimedOut || r.Signal != "SIGKILL" {
		t.Errorf("hang result = %+v", r)
	}
	if !res[1].Skipped || Passed(res) {
		t.Errorf("after timeout: %+v", res[1])
	}

	// A cancel of the parent is not a timeout, and later checks are skipped.
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(30*time.Millisecond, cancel)
	res = Run(ctx, checks("hang", "ok"), fakeExec(&ran, &sync.Mutex{}), nil)
	if res[0].TimedOut || !res[1].Skipped {
		t.Errorf("cancel: %+v", res)
	}
}

func TestRunParallel(t *testing.T) {
	var ran []string
	var live bytes.Buffer
	res := RunParallel(context.Background(), checks("fail", "ok", "kill"), fakeExec(&ran, &sync.Mutex{}), &live)
	if len(ran) != 3 || res[0].ExitCode != 3 || res[1].ExitCode != 0 || res[2].Signal != "SIGKILL" {
		t.Errorf("results = %+v", res)
	}
	for _, r := range res {
		if r.Skipped || !strings.HasPrefix(r.OutputTail, "running "+r.Name) {
			t.Errorf("result %+v", r)
		}
	}
	if !strings.Contains(live.String(), "[ok] running ok env=[A=1]\n") {
		t.Errorf("live = %q", live.String())
	}
}

func TestTailBounds(t *testing.T) {
	var ran []string
	res := Run(context.Background(), []config.Check{{Name: "big", Argv: []string{"big", "100001"}}}, fakeExec(&ran, &sync.Mutex{}), nil)
	tail := res[0].OutputTail
	if len(tail) > TailBytes || len(tail) < TailBytes-3 || !strings.HasSuffix(tail, "END") || !utf8.ValidString(tail) {
		t.Errorf("tail len %d valid %v", len(tail), utf8.ValidString(tail))
	}
	for _, tt := range []struct {
		in   string
		n    int
		want string
	}{
		{"hello", 10, "hello"}, {"hello", 3, "llo"}, {"hello", 0, ""}, {"aé", 1, ""}, {"aéb", 2, "b"}, {"aéb", 3, "éb"}, {"", 5, ""},
	} {
		if got := Tail([]byte(tt.in), tt.n); got != tt.want {
			t.Errorf("Tail(%q, %d) = %q, want %q", tt.in, tt.n, got, tt.want)
		}
	}
}

func TestStripControl(t *testing.T) {
	for in, want := range map[string]string{
		"plain\ttext\n":                 "plain\ttext\n",
		"\x1b[31mred\x1b[0m":            "red",
		"\x1b]0;title\x07after":         "after",
		"\x1b]8;;http://x\x1b\\link":    "link",
		"a\rb\x00c\x7fd\u009b2Je":       "abcde",
		"bell\x07 \x1b(B ok \xff":       "bell  ok \uFFFD",
		"progress \x1b[2K\x1b[1Gdone\n": "progress done\n",
	} {
		if got := StripControl(in); got != want {
			t.Errorf("StripControl(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestShellJoin(t *testing.T) {
	got := ShellJoin([]string{"sh", "-c", "go test ./... && echo 'ok'", "", "a=b"})
	want := `sh -c 'go test ./... && echo '\''ok'\''' '' a=b`
	if got != want {
		t.Errorf("ShellJoin = %s, want %s", got, want)
	}
}

func TestOutcomeJSONOrder(t *testing.T) {
	o := Outcome{
		Time: jsonl.TimeString(time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)), Run: "abc", Attempt: 2,
		Commit: "c", Base: "b", Config: "sha256:x", Passed: false, Halted: "no progress", DurationMS: 7,
		Checks: []CheckResult{{Name: "t", Command: "make", ExitCode: 1, Signal: "SIGKILL", TimedOut: true, DurationMS: 5, OutputTail: "x"}},
	}
	b, err := json.Marshal(o)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"time":"2025-01-02T03:04:05.000000000Z","run":"abc","attempt":2,"commit":"c","base":"b","config":"sha256:x",` +
		`"passed":false,"halted":"no progress","duration_ms":7,"checks":[{"name":"t","command":"make","exit_code":1,` +
		`"signal":"SIGKILL","timed_out":true,"duration_ms":5,"skipped":false,"output_tail":"x"}]}`
	if string(b) != want {
		t.Errorf("got  %s\nwant %s", b, want)
	}
	o.Halted, o.Checks[0].Signal = "", ""
	b, _ = json.Marshal(o)
	if strings.Contains(string(b), "halted") || strings.Contains(string(b), "signal") {
		t.Errorf("optional keys not omitted: %s", b)
	}
	if ts := jsonl.TimeString(time.Unix(0, 0)); len(ts) != 30 || ts != "1970-01-01T00:00:00.000000000Z" {
		t.Errorf("TimeString = %q", ts)
	}
}
