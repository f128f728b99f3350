// Package agents knows the coding agents git-agent runs: here, how to read
// what each one wrote in its own transcript (transcript*.go). Another part
// of the package holds the built-in tool profiles.
//
// Transcripts are harvested from the run's HOME, a directory the agent
// could write (DESIGN.md invariant 11): every path is opened from the HOME
// downward with O_NOFOLLOW at each step, only regular files are read, each
// read is bounded, and only complete lines new since the previous import
// are parsed. Whatever comes out is the agent's word, never the host's.
package agents

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/git-agent/git-agent/verify"
)

// Bounds on one import (bytes or counts).
const (
	// MaxTranscriptRead is how much of one transcript file is read per import.
	MaxTranscriptRead = 8 << 20
	// MaxTranscriptFiles is how many transcript files one import looks at.
	MaxTranscriptFiles = 64
	// MaxCalls is how many tool calls one import returns.
	MaxCalls = 1000
	// MaxRationale bounds a call's rationale and MaxSummary its one-line input
	// summary (bytes, cut at a UTF-8 boundary).
	MaxRationale = 1024
	MaxSummary   = 200
	// maxLine is the longest transcript line parsed; longer lines are skipped.
	maxLine = 4 << 20
)

// Call is one tool call found in a transcript.
type Call struct {
	// Time is when the transcript says the call was made (RFC 3339, as
	// written), or "".
	Time string
	// Tool is the tool's name as the agent called it ("Bash", "shell").
	Tool string
	// Summary is a one-line summary of the call's input.
	Summary string
	// Rationale is the assistant text that preceded the call, bounded.
	Rationale string
}

// Cursor remembers, per transcript file (path relative to HOME), how far
// it was imported and the assistant text seen since its last tool call, so
// that the next import reads only new lines. The zero value starts afresh.
type Cursor struct {
	files map[string]*fileState
}

type fileState struct {
	offset  int64
	pending string
}

// state returns the cursor entry for rel, creating it.
func (c *Cursor) state(rel string) *fileState {
	if c.files == nil {
		c.files = map[string]*fileState{}
	}
	if c.files[rel] == nil {
		c.files[rel] = &fileState{}
	}
	return c.files[rel]
}

// lineParser turns one transcript line into calls, given and updating the
// assistant text pending since the previous call.
type lineParser func(line []byte, pending *string) []Call

// Import reads the transcripts of every known tool under home (the run's
// HOME): Claude Code's session files and Codex's rollout files. It returns
// the calls new since cur's previous import, files in name order and lines
// in file order. Unreadable or odd entries (symlinks, devices, FIFOs) are
// skipped silently: a transcript is evidence, not a requirement.
func Import(home string, cur *Cursor) []Call {
	root, err := unix.Open(home, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer unix.Close(root)
	var calls []Call
	for _, src := range []struct {
		files []string
		parse lineParser
	}{
		{claudeFiles(root), parseClaudeLine},
		{codexFiles(root), parseCodexLine},
	} {
		for _, rel := range src.files {
			calls = append(calls, readNew(root, rel, cur.state(rel), src.parse)...)
			if len(calls) >= MaxCalls {
				return calls[:MaxCalls]
			}
		}
	}
	return calls
}

// readNew parses the complete lines of root/rel after st.offset.
func readNew(root int, rel string, st *fileState, parse lineParser) []Call {
	f, ok := openBeneath(root, rel, false)
	if !ok {
		return nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if fi.Size() < st.offset {
		st.offset, st.pending = 0, "" // rewritten: start over
	}
	if _, err := f.Seek(st.offset, io.SeekStart); err != nil {
		return nil
	}
	var calls []Call
	r := bufio.NewReaderSize(io.LimitReader(f, MaxTranscriptRead), 64<<10)
	for {
		line, n, err := readLine(r)
		if err != nil {
			return calls
		}
		st.offset += n
		if len(line) <= maxLine {
			calls = append(calls, parse(line, &st.pending)...)
		}
	}
}

// readLine returns one complete line including its '\n' and the bytes it
// consumed, or an error at the end (an incomplete last line is left for
// the next import). A line longer than maxLine is consumed whole but
// returned cut to maxLine+1 bytes, so the caller skips it.
func readLine(r *bufio.Reader) ([]byte, int64, error) {
	var buf []byte
	var n int64
	for {
		chunk, err := r.ReadSlice('\n')
		n += int64(len(chunk))
		if len(buf) <= maxLine {
			buf = append(buf, chunk[:min(len(chunk), maxLine+1-len(buf))]...)
		}
		switch err {
		case nil:
			return buf, n, nil
		case bufio.ErrBufferFull:
			continue
		default:
			return nil, 0, err
		}
	}
}

// openBeneath opens root/rel without following a symlink at any step;
// dir asks for a directory, otherwise any non-directory is opened (the
// caller checks it is regular). O_NONBLOCK keeps a FIFO from blocking.
func openBeneath(root int, rel string, dir bool) (*os.File, bool) {
	parts := strings.Split(rel, "/")
	fd, err := unix.Dup(root)
	if err != nil {
		return nil, false
	}
	for i, p := range parts {
		if p == "" || p == "." || p == ".." {
			unix.Close(fd)
			return nil, false
		}
		flags := unix.O_RDONLY | unix.O_NOFOLLOW | unix.O_CLOEXEC | unix.O_NONBLOCK
		if i < len(parts)-1 || dir {
			flags |= unix.O_DIRECTORY
		}
		next, err := unix.Openat(fd, p, flags, 0)
		unix.Close(fd)
		if err != nil {
			return nil, false
		}
		fd = next
	}
	return os.NewFile(uintptr(fd), rel), true
}

// list returns the names in root/rel that pass keep and are directories
// (wantDir) or regular files, as the directory says (no symlink followed),
// sorted.
func list(root int, rel string, wantDir bool, keep func(string) bool) []string {
	f, ok := openBeneath(root, rel, true)
	if !ok {
		return nil
	}
	defer f.Close()
	ents, err := f.ReadDir(4 * MaxTranscriptFiles)
	if err != nil && len(ents) == 0 {
		return nil
	}
	var out []string
	for _, e := range ents {
		t := e.Type()
		if (wantDir && t.IsDir() || !wantDir && t.IsRegular()) && keep(e.Name()) {
			out = append(out, e.Name())
		}
	}
	sort.Strings(out)
	return out
}

func all(string) bool { return true }

// Summarize returns a one-line summary of a tool call's input (a JSON
// object): its command, else a path, pattern, URL or query, else the
// compact JSON; newlines become spaces and the result is at most
// MaxSummary bytes.
func Summarize(input json.RawMessage) string {
	var m map[string]json.RawMessage
	if json.Unmarshal(input, &m) == nil {
		for _, k := range []string{"command", "cmd", "file_path", "path", "notebook_path", "pattern", "url", "query", "description", "prompt"} {
			v, ok := m[k]
			if !ok {
				continue
			}
			var s string
			var a []string
			switch {
			case json.Unmarshal(v, &s) == nil && s != "":
				return oneLine(s, MaxSummary)
			case json.Unmarshal(v, &a) == nil && len(a) > 0:
				if len(a) == 3 && (a[0] == "bash" || a[0] == "sh") && (a[1] == "-lc" || a[1] == "-c") {
					return oneLine(a[2], MaxSummary)
				}
				return oneLine(strings.Join(a, " "), MaxSummary)
			}
		}
	}
	var s string
	if json.Unmarshal(input, &s) == nil {
		return oneLine(s, MaxSummary)
	}
	return oneLine(string(input), MaxSummary)
}

// oneLine joins s's lines with spaces, trims it and bounds it to n bytes.
func oneLine(s string, n int) string {
	return bound(strings.Join(strings.Fields(s), " "), n)
}

// bound trims s and cuts it to at most n bytes at a UTF-8 boundary,
// marking a cut "…".
func bound(s string, n int) string { return verify.Clip(strings.TrimSpace(s), n) }

// addText appends assistant text to pending, keeping its last MaxRationale
// bytes (the text nearest the call explains it best).
func addText(pending *string, text string) {
	text = strings.TrimSpace(text)
	if text == "" {
		return
	}
	s := text
	if *pending != "" {
		s = *pending + "\n" + text
	}
	*pending = verify.Tail([]byte(s), 4*MaxRationale)
}

// takeRationale returns the pending text, bounded, and clears it.
func takeRationale(pending *string) string {
	s := *pending
	*pending = ""
	if len(s) > MaxRationale {
		return "…" + verify.Tail([]byte(s), MaxRationale)
	}
	return s
}

// ParseTime reads a transcript timestamp (RFC 3339), or the zero time.
func ParseTime(s string) time.Time {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}
