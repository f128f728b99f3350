package verify

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"

	"github.com/git-agent/git-agent/config"
)

// Exec runs one command sandboxed in the check checkout and waits for it.
// argv is the check's command; env holds the check's own "KEY=VALUE"
// entries, which the executor adds to its scrubbed base environment; the
// command's stdout and stderr both go to out (which is safe for concurrent
// writes). ctx carries the check's deadline: when ctx is done the executor
// must kill the whole sandbox and return. exitCode is the command's exit
// status, signal the name of the signal that killed it ("SIGKILL") or "".
// err is only for a failure of the sandbox itself (could not start, bwrap
// reported an error), never for a non-zero exit.
type Exec func(ctx context.Context, argv []string, env []string, out io.Writer) (exitCode int, signal string, err error)

// Run runs checks in order, fail-fast: after the first check that is not OK
// (or once ctx is done) the remaining ones are recorded with Skipped true
// and ExitCode -1. Each check gets context.WithTimeout(ctx, its Timeout)
// (config.DefaultTimeout when zero); TimedOut is set when that deadline,
// not ctx's own, ended a check that did not succeed. Output is streamed to
// live (nil for none) and its last TailBytes kept as OutputTail. A sandbox
// error is a failing result with ExitCode -1 and "git-agent: sandbox error:
// <err>" appended to the tail (and to live). Run never returns an error:
// the caller checks ctx.Err() to tell a cancel from a failure.
//
// To run [[setup]] before the checks with the same fail-fast rule, pass
// append(cfg.Setup, cfg.Checks...).
func Run(ctx context.Context, checks []config.Check, exec Exec, live io.Writer) []CheckResult {
	results := make([]CheckResult, 0, len(checks))
	stop := false
	for _, c := range checks {
		if stop || ctx.Err() != nil {
			results = append(results, skipped(c))
			continue
		}
		r := runOne(ctx, c, exec, &tailWriter{live: live, mu: &sync.Mutex{}})
		results = append(results, r)
		stop = !r.OK()
	}
	return results
}

// RunParallel runs all checks at once (verify.parallel = true) and returns
// their results in configuration order. Nothing is skipped, except checks
// not yet started when ctx is done. Output lines reach live prefixed with
// "[<name>] " so concurrent checks stay readable; OutputTail holds each
// check's own output unprefixed.
func RunParallel(ctx context.Context, checks []config.Check, exec Exec, live io.Writer) []CheckResult {
	results := make([]CheckResult, len(checks))
	var wg sync.WaitGroup
	liveMu := &sync.Mutex{}
	for i, c := range checks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if ctx.Err() != nil {
				results[i] = skipped(c)
				return
			}
			var pl *prefixWriter
			if live != nil {
				pl = &prefixWriter{w: live, prefix: []byte("[" + c.Name + "] "), atStart: true}
			}
			tw := &tailWriter{mu: liveMu}
			if pl != nil {
				tw.live = pl
			}
			results[i] = runOne(ctx, c, exec, tw)
			if pl != nil {
				liveMu.Lock()
				pl.finish()
				liveMu.Unlock()
			}
		}()
	}
	wg.Wait()
	return results
}

func skipped(c config.Check) CheckResult {
	return CheckResult{Name: c.Name, Command: ShellJoin(c.Argv), ExitCode: -1, Skipped: true}
}

func runOne(ctx context.Context, c config.Check, exec Exec, tw *tailWriter) CheckResult {
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = config.DefaultTimeout
	}
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	start := time.Now()
	code, sig, err := exec(cctx, c.Argv, c.Env, tw)
	r := CheckResult{
		Name:       c.Name,
		Command:    ShellJoin(c.Argv),
		ExitCode:   code,
		Signal:     sig,
		DurationMS: time.Since(start).Milliseconds(),
	}
	if err != nil {
		r.ExitCode = -1
		tw.Write([]byte("\ngit-agent: sandbox error: " + err.Error() + "\n"))
	}
	succeeded := err == nil && code == 0 && sig == ""
	r.TimedOut = !succeeded && ctx.Err() == nil && errors.Is(cctx.Err(), context.DeadlineExceeded)
	r.OutputTail = tw.tail()
	return r
}

// tailWriter forwards output to live and keeps the last TailBytes. mu
// guards both the buffer and live (shared between parallel checks).
type tailWriter struct {
	live io.Writer
	mu   *sync.Mutex
	buf  []byte
}

func (t *tailWriter) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.live != nil {
		t.live.Write(p) // a broken terminal must not fail the check
	}
	t.buf = append(t.buf, p...)
	if len(t.buf) > 2*TailBytes {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-TailBytes:]...)
	}
	return len(p), nil
}

func (t *tailWriter) tail() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return Tail(t.buf, TailBytes)
}

// prefixWriter writes each line to w with prefix before it. The caller
// serializes calls.
type prefixWriter struct {
	w       io.Writer
	prefix  []byte
	atStart bool
}

func (p *prefixWriter) Write(b []byte) (int, error) {
	var out bytes.Buffer
	for len(b) > 0 {
		if p.atStart {
			out.Write(p.prefix)
			p.atStart = false
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			out.Write(b)
			break
		}
		out.Write(b[:i+1])
		b = b[i+1:]
		p.atStart = true
	}
	return p.w.Write(out.Bytes())
}

// finish ends an unterminated last line so the next check's prefix starts
// on its own line.
func (p *prefixWriter) finish() {
	if !p.atStart {
		p.w.Write([]byte("\n"))
		p.atStart = true
	}
}
