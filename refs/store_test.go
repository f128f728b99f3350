package refs

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-agent/git-agent/errfmt"
)

func TestSaveLoad(t *testing.T) {
	ctx := context.Background()
	git := newRepo(t)
	s := Store{Git: git}
	id := NewID(time.Now(), nil)
	rec := &Record{ID: id, Tool: "claude", Argv: []string{"--x", "<&>"}, Message: "fix it"}
	rec.SetState(StateCreated, time.Now())
	if err := s.Save(ctx, rec, []byte("hello\n"), "created"); err != nil {
		t.Fatal(err)
	}
	rec.SetState(StateRunning, time.Now())
	rec.Attempts = 1
	if err := s.Save(ctx, rec, nil, "running"); err != nil {
		t.Fatal(err)
	}
	got, err := s.Load(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.State != StateRunning || len(got.States) != 2 || got.Attempts != 1 || got.Argv[1] != "<&>" ||
		got.Version != RecordVersion || got.Created == "" || got.Updated == "" {
		t.Errorf("loaded %+v", got)
	}
	log, err := s.OutputLog(ctx, id)
	if err != nil || string(log) != "hello\n" {
		t.Errorf("OutputLog = %q, %v (nil must keep the previous log)", log, err)
	}
	hist, err := s.History(ctx, id)
	if err != nil || strings.Join(hist, "|") != "created|running" {
		t.Errorf("History = %q, %v", hist, err)
	}
	// run.json is indented, snake_case, ends in a newline, keys in order.
	raw, err := git.Run(ctx, "cat-file", "blob", RecordRef(id)+":run.json")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(raw, "{\n  \"version\": 1,\n  \"id\": ") || !strings.Contains(raw, `"base_ref": ""`) ||
		!strings.Contains(raw, `"<&>"`) || !strings.Contains(raw, `"results": []`) {
		t.Errorf("run.json:\n%s", raw)
	}
	// The commits are git-agent's and the reflog message is prefixed.
	author, _ := git.Run(ctx, "log", "-1", "--format=%an <%ae> %cn", RecordRef(id))
	if author != "git-agent <git-agent@localhost> git-agent" {
		t.Errorf("author %q", author)
	}
	if rl, _ := git.Run(ctx, "reflog", "--format=%gs", RecordRef(id)); rl != "git-agent: running\ngit-agent: created" {
		t.Errorf("reflog %q", rl)
	}
	// Missing runs.
	for _, bad := range []string{"zzzz", "NOT-AN-ID"} {
		if _, err := s.Load(ctx, bad); errfmt.As(err).Code != errfmt.ErrNoRun {
			t.Errorf("Load(%q) = %v, want ERR_NO_RUN", bad, err)
		}
		if _, err := s.OutputLog(ctx, bad); errfmt.As(err).Code != errfmt.ErrNoRun {
			t.Errorf("OutputLog(%q) = %v", bad, err)
		}
	}
	if err := s.Save(ctx, &Record{ID: "Bad"}, nil, "x"); errfmt.As(err).Code != errfmt.ErrInternal {
		t.Errorf("Save bad id = %v", err)
	}
}

func TestOutputCap(t *testing.T) {
	small := bytes.Repeat([]byte("x"), MaxOutputLog)
	if got := CapOutput(small); len(got) != MaxOutputLog {
		t.Errorf("1 MiB was cut to %d", len(got))
	}
	big := make([]byte, 3<<20)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	got := CapOutput(big)
	cut := len(big) - OutputHead - OutputTail
	marker := fmt.Sprintf("\n[… %d bytes cut …]\n", cut)
	if !bytes.Equal(got[:OutputHead], big[:OutputHead]) ||
		!bytes.Equal(got[OutputHead:OutputHead+len(marker)], []byte(marker)) ||
		!bytes.Equal(got[OutputHead+len(marker):], big[len(big)-OutputTail:]) {
		t.Errorf("bad cap: len %d", len(got))
	}
	// A multi-byte character on a cut point is not split.
	u := bytes.Repeat([]byte("é"), 1<<20) // 2 MiB
	got = CapOutput(u)
	if !bytes.HasPrefix(got, []byte("é")) || !bytes.HasSuffix(got, []byte("é")) {
		t.Error("bad utf-8 cut")
	}
	for _, part := range bytes.Split(got, []byte("\n")) {
		if !strings.HasPrefix(string(part), "[") && !isValidUTF8(part) {
			t.Error("split character")
		}
	}
	// Saved logs are capped.
	ctx := context.Background()
	s := Store{Git: newRepo(t)}
	rec := &Record{ID: "abc"}
	if err := s.Save(ctx, rec, big, "x"); err != nil {
		t.Fatal(err)
	}
	log, err := s.OutputLog(ctx, "abc")
	if err != nil || !bytes.Equal(log, CapOutput(big)) {
		t.Errorf("saved log len %d, %v", len(log), err)
	}
}

func isValidUTF8(b []byte) bool { return strings.ToValidUTF8(string(b), "\uFFFD") == string(b) }

func TestListResolve(t *testing.T) {
	ctx := context.Background()
	s := Store{Git: newRepo(t)}
	if _, err := s.Resolve(ctx, "last"); errfmt.As(err).Code != errfmt.ErrNoRun {
		t.Errorf("last with no runs: %v", err)
	}
	if recs, err := s.List(ctx); err != nil || len(recs) != 0 {
		t.Errorf("List empty = %v, %v", recs, err)
	}
	ids := []string{"000aaa0001", "000aaa0002", "000bbb0001", "000ccc"}
	for _, id := range ids {
		if err := s.Save(ctx, &Record{ID: id, Message: "task " + id}, nil, "created"); err != nil {
			t.Fatal(err)
		}
	}
	// A stray ref that is not a valid id is ignored.
	if _, err := s.Git.Run(ctx, "update-ref", RecordPrefix+"Not_An_Id", RecordRef("000ccc")); err != nil {
		t.Fatal(err)
	}
	recs, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.ID)
		if r.Message != "task "+r.ID {
			t.Errorf("record %s: message %q", r.ID, r.Message)
		}
	}
	if strings.Join(got, " ") != "000ccc 000bbb0001 000aaa0002 000aaa0001" {
		t.Errorf("List order %v", got)
	}
	tests := []struct {
		name string
		want string
		code errfmt.Code
	}{
		{"last", "000ccc", ""},
		{"000aaa0001", "000aaa0001", ""},
		{"000b", "000bbb0001", ""},
		{"000aaa", "", errfmt.ErrAmbiguousRun},
		{"000", "", errfmt.ErrAmbiguousRun},
		{"000ddd", "", errfmt.ErrNoRun},
		{"bad/name", "", errfmt.ErrNoRun},
		{"refs/agent/runs/000ccc", "000ccc", ""},
		{"agent/000bb", "000bbb0001", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			id, err := s.Resolve(ctx, tt.name)
			if tt.code != "" {
				e := errfmt.As(err)
				if e.Code != tt.code || strings.Count(e.Format(), "\n") != 4 || !strings.Contains(e.Remedy, "git agent ls") {
					t.Errorf("Resolve(%q) = %q, %v; want %s", tt.name, id, err, tt.code)
				}
				return
			}
			if err != nil || id != tt.want {
				t.Errorf("Resolve(%q) = %q, %v; want %q", tt.name, id, err, tt.want)
			}
		})
	}
}

func TestSaveConcurrent(t *testing.T) {
	ctx := context.Background()
	s := Store{Git: newRepo(t)}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for i := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := &Record{ID: "race", Attempts: i}
			errs <- s.Save(ctx, rec, nil, fmt.Sprintf("save %d", i))
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
	hist, err := s.History(ctx, "race")
	if err != nil || len(hist) != 8 {
		t.Errorf("History = %d entries, %v; want 8 (one commit per Save)", len(hist), err)
	}
}
