package netproxy

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"time"
)

// Entry is one logged decision, written as a JSON line (the format of the
// run's network.jsonl).
type Entry struct {
	// Time is RFC 3339 with nanoseconds, UTC; Write fills it in.
	Time string `json:"time"`
	// Method is CONNECT or the plain HTTP method.
	Method string `json:"method"`
	// Target is the authority asked for, as sent (CONNECT's, or the
	// URL's host:port).
	Target string `json:"target"`
	// Host and Port are the normalized target.
	Host string `json:"host,omitempty"`
	Port string `json:"port,omitempty"`
	// Allowed is the verdict; Reason says why.
	Allowed bool   `json:"allowed"`
	Reason  string `json:"reason"`
}

// Log writes entries to w as JSON lines and keeps per-host counts for
// Summary. A nil *Log discards everything. It is safe for concurrent use.
type Log struct {
	mu      sync.Mutex
	w       io.Writer
	allowed map[string]int
	denied  map[string]int
}

// NewLog returns a Log writing to w (nil: counts only).
func NewLog(w io.Writer) *Log {
	return &Log{w: w, allowed: map[string]int{}, denied: map[string]int{}}
}

// Write records e.
func (l *Log) Write(e Entry) {
	if l == nil {
		return
	}
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	b, _ := json.Marshal(e)
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w != nil {
		l.w.Write(append(b, '\n'))
	}
	key := e.Host
	if key == "" {
		key = e.Target
	}
	if e.Allowed {
		l.allowed[key]++
	} else {
		l.denied[key]++
	}
}

// Summary returns the hosts allowed and denied so far, each as
// "host (N)" sorted by host; nil when there were none.
func (l *Log) Summary() (allowed, denied []string) {
	if l == nil {
		return nil, nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return counts(l.allowed), counts(l.denied)
}

func counts(m map[string]int) []string {
	var out []string
	for h, n := range m {
		out = append(out, fmt.Sprintf("%s (%d)", h, n))
	}
	sort.Strings(out)
	return out
}

// Line summarizes the log in one line: "network: allowed a (2); denied
// b (1)", or "network: no requests".
func (l *Log) Line() string {
	a, d := l.Summary()
	if len(a)+len(d) == 0 {
		return "network: no requests"
	}
	var parts []string
	if len(a) > 0 {
		parts = append(parts, "allowed "+strings.Join(a, ", "))
	}
	if len(d) > 0 {
		parts = append(parts, "denied "+strings.Join(d, ", "))
	}
	return "network: " + strings.Join(parts, "; ")
}
