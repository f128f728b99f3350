package fakeapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestParseScript(t *testing.T) {
	for _, tc := range []struct {
		src  string
		want []Step
		err  string
	}{
		{src: "# c\n\nwrite a.txt hi\\nthere\nbash git commit -qam x\nsay ok",
			want: []Step{{Write, "a.txt", "hi\nthere", ""}, {Bash, "", "git commit -qam x", ""}, {Say, "", "ok", ""}}},
		{src: "why first\nwrite a b\nwhen repair attempt 2\nwhy fix it\nbash true",
			want: []Step{{Write, "a", "b", "first"}, {When, "", "repair attempt 2", ""}, {Bash, "", "true", "fix it"}}},
		{src: "why x\nsay y", err: "line 2: why must precede"},
		{src: "bash a\nwhy x", err: "ends with a why"},
		{src: "write a.txt", err: "line 1"},
		{src: "say", err: "needs an argument"},
		{src: "say a\njump b", err: "line 2: unknown step"},
		{src: "when", err: "needs an argument"},
	} {
		got, err := ParseScript(tc.src)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("ParseScript(%q) = %v, want error %q", tc.src, err, tc.err)
			}
			continue
		}
		if err != nil || len(got) != len(tc.want) {
			t.Fatalf("ParseScript(%q) = %v, %v", tc.src, got, err)
		}
		for i := range got {
			if got[i] != tc.want[i] {
				t.Errorf("step %d = %+v, want %+v", i, got[i], tc.want[i])
			}
		}
	}
}

func TestPick(t *testing.T) {
	steps, err := ParseScript("write a 1\nbash b\nsay ok\nwhen repair attempt 2\nbash fix\nwhen never\nsay no")
	if err != nil {
		t.Fatal(err)
	}
	p := func(s string) event { return event{prompt: true, text: s} }
	r := event{text: "result"}
	for _, tc := range []struct {
		name    string
		conv    []event
		want    string
		n       int
		section string
	}{
		{"start", []event{p("task")}, "write", 0, ""},
		{"after one result", []event{p("task"), r}, "bash", 1, ""},
		{"end of the first section", []event{p("task"), r, r}, "say", 2, ""},
		{"past the end says done", []event{p("task"), r, r, r}, "say", 3, ""},
		{"a continued session's repair prompt", []event{p("task"), r, r, p("git-agent: repair attempt 2 of 3.")}, "bash", 0, "repair attempt 2"},
		{"after the repair's first result", []event{p("task"), r, r, p("git-agent: repair attempt 2 of 3."), r}, "say", 1, "repair attempt 2"},
		{"a prompt that matches nothing counts in the first section", []event{p("task"), r, p("go on")}, "bash", 1, ""},
	} {
		st, n, section := pick(steps, tc.conv)
		if st.Kind != tc.want || n != tc.n || section != tc.section {
			t.Errorf("%s: pick = %+v, %d, %q; want %s, %d, %q", tc.name, st, n, section, tc.want, tc.n, tc.section)
		}
	}
}

func TestCall(t *testing.T) {
	claude := []Tool{{Name: "Bash", Schema: json.RawMessage(`{"properties":{"command":{"type":"string"},"description":{"type":"string"}}}`)},
		{Name: "Write", Schema: json.RawMessage(`{"properties":{"file_path":{"type":"string"},"content":{"type":"string"}}}`)}}
	opencode := []Tool{{Name: "write", Schema: json.RawMessage(`{"properties":{"filePath":{},"content":{}}}`)}}
	codex := []Tool{{Name: "shell", Params: json.RawMessage(`{"properties":{"command":{"type":"array"},"workdir":{"type":"string"}}}`)}}
	for _, tc := range []struct {
		name  string
		step  Step
		tools []Tool
		want  string
	}{
		{"claude write", Step{Kind: Write, Path: "a", Text: "x"}, claude, `Write {"content":"x","file_path":"a"}`},
		{"claude bash", Step{Kind: Bash, Path: "", Text: "ls"}, claude, `Bash {"command":"ls","description":"scripted step"}`},
		{"opencode write", Step{Kind: Write, Path: "a", Text: "x"}, opencode, `write {"content":"x","filePath":"a"}`},
		{"codex bash", Step{Kind: Bash, Path: "", Text: "ls"}, codex, `shell {"command":["bash","-lc","ls"]}`},
		{"codex write via shell", Step{Kind: Write, Path: "d/a", Text: "it's"}, codex,
			`shell {"command":["bash","-lc","mkdir -p \"$(dirname 'd/a')\" \u0026\u0026 printf '%s' 'it'\\''s' \u003e 'd/a'"]}`},
		{"no tool", Step{Kind: Bash, Path: "", Text: "ls"}, opencode, ""},
	} {
		c, ok := call(tc.step, tc.tools)
		got := ""
		if ok {
			b, _ := json.Marshal(c.Args)
			got = c.Name + " " + string(b)
		}
		if got != tc.want {
			t.Errorf("%s: got %s\nwant %s", tc.name, got, tc.want)
		}
	}
}

// post sends body to the server and returns the response body.
func post(t *testing.T, url, body string) (int, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestServer(t *testing.T) {
	steps, _ := ParseScript("write a.txt hello\nwhy committing now\nbash git commit -qam x")
	var log bytes.Buffer
	s, err := Start(context.Background(), steps, &log)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL, "http://127.0.0.1:") {
		t.Fatalf("URL %s is not on loopback", s.URL)
	}
	tools := `"tools":[{"name":"Write","input_schema":{"properties":{"file_path":{},"content":{}}}},{"name":"Bash","input_schema":{"properties":{"command":{}}}}]`
	result := `{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok"}]}`
	for _, tc := range []struct {
		name, path, body string
		status           int
		want             []string
	}{
		{"step 0 streams a Write call", "/v1/messages", `{"model":"m","stream":true,` + tools + `,"messages":[{"role":"system","content":"sys"},{"role":"user","content":"go"}]}`,
			200, []string{"event: message_start", `"type":"tool_use"`, `"name":"Write"`, `"stop_reason":"tool_use"`, "event: message_stop"}},
		{"step 1 after one result", "/v1/messages?beta=true", `{"model":"m","stream":true,` + tools + `,"messages":[` + result + `]}`,
			200, []string{`"text":"committing now","type":"text_delta"`, `"index":1,"type":"content_block_start"`, `"name":"Bash"`, `git commit -qam x`}},
		{"past the script says done, not streaming", "/v1/messages", `{"model":"m",` + tools + `,"messages":[` + result + `,` + result + `]}`,
			200, []string{`"text":"done"`, `"stop_reason":"end_turn"`}},
		{"no fitting tool", "/v1/messages", `{"model":"m","messages":[{"role":"user","content":"go"}]}`, 400, []string{"no tool fits"}},
		{"bad json", "/v1/messages", `{`, 400, []string{"invalid_request_error"}},
		{"count tokens", "/v1/messages/count_tokens", `{}`, 200, []string{`"input_tokens":10`}},
		{"responses", "/v1/responses", `{"model":"gpt","stream":true,"tools":[{"type":"function","name":"shell","parameters":{"properties":{"command":{"type":"array"}}}}],"input":[{"type":"message","role":"user","content":[]},{"type":"function_call_output","call_id":"c","output":"ok"}]}`,
			200, []string{"event: response.created", `"delta":"committing now"`, `"output_index":1`, `"type":"function_call"`, `"arguments":"{\"command\":[\"bash\",\"-lc\",\"git commit -qam x\"]}"`, "event: response.completed"}},
		{"unknown path", "/v2/nothing", `{}`, 404, []string{"no such endpoint"}},
	} {
		status, body := post(t, s.URL+tc.path, tc.body)
		if status != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, status, tc.status, body)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: body lacks %s:\n%s", tc.name, w, body)
			}
		}
	}
	var entries []Entry
	sc := bufio.NewScanner(&log)
	for sc.Scan() {
		var e Entry
		if err := json.Unmarshal(sc.Bytes(), &e); err != nil {
			t.Fatalf("log line %q: %v", sc.Text(), err)
		}
		entries = append(entries, e)
	}
	if len(entries) != 8 {
		t.Fatalf("logged %d requests, want 8", len(entries))
	}
	if e := entries[1]; e.Step != 1 || e.Results[0] != "ok" || e.Reply != `say: committing now; call Bash {"command":"git commit -qam x"}` || e.Prompt != "" || e.API != "anthropic" {
		t.Errorf("entry 1 = %+v", e)
	}
	if e := entries[6]; e.API != "openai" || e.Step != 1 || e.Tools[0] != "shell" {
		t.Errorf("entry 6 = %+v", e)
	}
}
