package agents

import (
	"encoding/json"
	"strings"
)

// Claude Code keeps one JSONL file per session under
// $CLAUDE_CONFIG_DIR/projects/<cwd with "/" (and other non-alphanumerics)
// as "-">/<session-id>.jsonl; git-agent sets CLAUDE_CONFIG_DIR to
// <run HOME>/.claude. The run's HOME is private to the run, so every
// project directory in it is this run's and all are read (no guessing of
// Claude's path mangling). Lines with "type":"assistant" carry
// message.content, an array of blocks: {"type":"text","text"},
// {"type":"thinking",...}, {"type":"tool_use","id","name","input"}. Claude
// Code usually writes each block of one API message as its own line.

// claudeDir is the Claude Code config directory relative to the run's HOME.
const claudeDir = ".claude/projects"

// claudeFiles lists the session files under HOME/.claude/projects/*/.
func claudeFiles(root int) []string {
	var out []string
	for _, p := range list(root, claudeDir, true, all) {
		for _, f := range list(root, claudeDir+"/"+p, false, func(n string) bool { return strings.HasSuffix(n, ".jsonl") }) {
			out = append(out, claudeDir+"/"+p+"/"+f)
			if len(out) >= MaxTranscriptFiles {
				return out
			}
		}
	}
	return out
}

type claudeLine struct {
	Type      string `json:"type"`
	Timestamp string `json:"timestamp"`
	Message   struct {
		Content json.RawMessage `json:"content"`
	} `json:"message"`
}

type claudeBlock struct {
	Type  string          `json:"type"`
	Text  string          `json:"text"`
	Name  string          `json:"name"`
	Input json.RawMessage `json:"input"`
}

// parseClaudeLine returns the tool calls of one Claude Code transcript
// line; text blocks accumulate in pending as the rationale of the next call.
// A new user prompt (a "user" line that is not only tool results, e.g. the
// repair prompt of a continued session) clears pending: text that answered
// an earlier prompt does not explain calls made for the next one.
func parseClaudeLine(line []byte, pending *string) []Call {
	var l claudeLine
	if json.Unmarshal(line, &l) != nil {
		return nil
	}
	if l.Type == "user" && isPrompt(l.Message.Content) {
		*pending = ""
	}
	if l.Type != "assistant" {
		return nil
	}
	var blocks []claudeBlock
	if json.Unmarshal(l.Message.Content, &blocks) != nil {
		return nil
	}
	var calls []Call
	for _, b := range blocks {
		switch b.Type {
		case "text":
			addText(pending, b.Text)
		case "tool_use":
			if b.Name == "" {
				continue
			}
			calls = append(calls, Call{Time: l.Timestamp, Tool: oneLine(b.Name, 64),
				Summary: Summarize(b.Input), Rationale: takeRationale(pending)})
		}
	}
	return calls
}

// isPrompt reports whether a user message's content is a prompt: a string,
// or blocks of which one is text (tool results come as tool_result blocks).
func isPrompt(content json.RawMessage) bool {
	var s string
	if json.Unmarshal(content, &s) == nil {
		return true
	}
	var blocks []claudeBlock
	if json.Unmarshal(content, &blocks) != nil {
		return false
	}
	for _, b := range blocks {
		if b.Type == "text" {
			return true
		}
	}
	return false
}
