package fakeapi

import (
	"encoding/json"
	"strings"
)

// Tool is one tool offered in a request: its name and its JSON Schema
// parameters (Anthropic's input_schema, OpenAI's parameters).
type Tool struct {
	Name   string          `json:"name"`
	Schema json.RawMessage `json:"input_schema"`
	Params json.RawMessage `json:"parameters"`
}

// schema returns the tool's parameter properties: name → JSON type ("" when
// unknown).
func (t Tool) props() map[string]string {
	raw := t.Schema
	if len(raw) == 0 {
		raw = t.Params
	}
	var s struct {
		Properties map[string]struct {
			Type any `json:"type"`
		} `json:"properties"`
	}
	_ = json.Unmarshal(raw, &s)
	out := map[string]string{}
	for k, v := range s.Properties {
		typ, _ := v.Type.(string)
		out[k] = typ
	}
	return out
}

// shellNames and writeNames are the tool names agents use, lower-cased.
var (
	shellNames = []string{"bash", "shell", "shell_command", "exec_command", "local_shell"}
	writeNames = []string{"write", "write_file", "create_file"}
)

// find returns the first tool whose lower-cased name is in names.
func find(tools []Tool, names []string) (Tool, bool) {
	for _, n := range names {
		for _, t := range tools {
			if strings.ToLower(t.Name) == n {
				return t, true
			}
		}
	}
	return Tool{}, false
}

// firstKey returns the first of keys present in props.
func firstKey(props map[string]string, keys ...string) string {
	for _, k := range keys {
		if _, ok := props[k]; ok {
			return k
		}
	}
	return keys[0]
}

// Call is a tool call the fake model makes: the tool's name and its
// arguments, shaped after the tool's schema.
type Call struct {
	Name string
	Args map[string]any
}

// call turns a write or bash step into a call of one of tools. A write with
// no write tool becomes a shell command. ok is false when no tool fits.
func call(s Step, tools []Tool) (Call, bool) {
	if s.Kind == Write {
		if t, ok := find(tools, writeNames); ok {
			p := t.props()
			return Call{Name: t.Name, Args: map[string]any{
				firstKey(p, "file_path", "filePath", "path"): s.Path,
				firstKey(p, "content", "contents", "text"):   s.Text,
			}}, true
		}
		s = Step{Kind: Bash, Text: "mkdir -p \"$(dirname '" + s.Path + "')\" && printf '%s' '" +
			strings.ReplaceAll(s.Text, "'", `'\''`) + "' > '" + s.Path + "'"}
	}
	t, ok := find(tools, shellNames)
	if !ok {
		return Call{}, false
	}
	p := t.props()
	key := firstKey(p, "command", "cmd")
	args := map[string]any{key: s.Text}
	if p[key] == "array" {
		args[key] = []string{"bash", "-lc", s.Text}
	}
	if _, ok := p["description"]; ok {
		args["description"] = "scripted step"
	}
	return Call{Name: t.Name, Args: args}, true
}
