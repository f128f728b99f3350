package notes

import (
	"context"
	"strings"
	"testing"
)

func TestDecisions(t *testing.T) {
	ctx := context.Background()
	git, commits := newRepo(t, 1)
	c := commits[0]
	d := Decision{Time: "2026-01-02T03:04:05.000000000Z", Run: "abc", Source: SourceAgent, Attempt: 1,
		Decision: "use <b> & friends", Rationale: "because"}
	if err := AppendJSON(ctx, git, DecisionsRef, c, d); err != nil {
		t.Fatal(err)
	}
	if err := Append(ctx, git, DecisionsRef, c, [][]byte{[]byte("not json"), []byte(`{"time":"x","run":"abc","decision":"second","tool":"claude"}`)}); err != nil {
		t.Fatal(err)
	}
	lines, _ := Read(ctx, git, DecisionsRef, c)
	want := `{"time":"2026-01-02T03:04:05.000000000Z","run":"abc","source":"agent","attempt":1,"decision":"use <b> & friends","rationale":"because"}`
	if len(lines) != 3 || string(lines[0]) != want {
		t.Errorf("line 0 = %s\nwant     %s", lines[0], want)
	}
	ds, err := ReadDecisions(ctx, git, c)
	if err != nil || len(ds) != 2 || ds[0] != d || ds[1].Decision != "second" || ds[1].Tool != "claude" {
		t.Errorf("ReadDecisions = %+v, %v", ds, err)
	}
	if err := AppendJSON(ctx, git, DecisionsRef, c, func() {}); err == nil || !strings.Contains(err.Error(), "encode") {
		t.Errorf("unencodable value: %v", err)
	}
}
