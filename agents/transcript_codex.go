package agents

import (
	"encoding/json"
	"strings"
)

// Codex CLI writes one rollout file per session under
// $CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl (CODEX_HOME is
// <run HOME>/.codex). Each line is {"timestamp","type","payload"}; lines
// with "type":"response_item" carry the model's items: payload
// {"type":"message","role":"assistant","content":[{"type":"output_text",
// "text"}]}, {"type":"reasoning","summary":[{"type":"summary_text","text"}]},
// {"type":"function_call","name","arguments" (a JSON string),"call_id"} and
// {"type":"custom_tool_call","name","input" (a string, e.g. apply_patch)}.

// codexDir is Codex's session directory relative to the run's HOME.
const codexDir = ".codex/sessions"

// codexFiles lists the rollout files under HOME/.codex/sessions/Y/M/D/.
func codexFiles(root int) []string {
	var out []string
	for _, y := range list(root, codexDir, true, all) {
		for _, m := range list(root, codexDir+"/"+y, true, all) {
			for _, d := range list(root, codexDir+"/"+y+"/"+m, true, all) {
				dir := codexDir + "/" + y + "/" + m + "/" + d
				for _, f := range list(root, dir, false, func(n string) bool {
					return strings.HasPrefix(n, "rollout-") && strings.HasSuffix(n, ".jsonl")
				}) {
					out = append(out, dir+"/"+f)
					if len(out) >= MaxTranscriptFiles {
						return out
					}
				}
			}
		}
	}
	return out
}

type codexLine struct {
	Timestamp string `json:"timestamp"`
	Type      string `json:"type"`
	Payload   struct {
		Type      string `json:"type"`
		Role      string `json:"role"`
		Name      string `json:"name"`
		Arguments string `json:"arguments"`
		Input     string `json:"input"`
		Content   []struct {
			Type string `json:"type"`
			Text string `json:"text"`
		} `json:"content"`
		Summary []struct {
			Text string `json:"text"`
		} `json:"summary"`
	} `json:"payload"`
}

// parseCodexLine returns the tool call of one Codex rollout line, if it
// is one; assistant messages and reasoning summaries accumulate in pending
// as the rationale of the next call, and a user message clears it.
func parseCodexLine(line []byte, pending *string) []Call {
	var l codexLine
	if json.Unmarshal(line, &l) != nil || l.Type != "response_item" {
		return nil
	}
	p := l.Payload
	switch p.Type {
	case "message":
		if p.Role == "user" {
			// A new prompt (e.g. a repair prompt after resume): text that
			// answered an earlier one does not explain the next calls.
			*pending = ""
		}
		if p.Role == "assistant" {
			for _, c := range p.Content {
				if c.Type == "output_text" || c.Type == "text" {
					addText(pending, c.Text)
				}
			}
		}
	case "reasoning":
		for _, s := range p.Summary {
			addText(pending, s.Text)
		}
	case "function_call", "custom_tool_call":
		if p.Name == "" {
			return nil
		}
		input := json.RawMessage(p.Arguments)
		if p.Type == "custom_tool_call" || !json.Valid(input) {
			b, _ := json.Marshal(p.Input + p.Arguments)
			input = b
		}
		return []Call{{Time: l.Timestamp, Tool: oneLine(p.Name, 64), Summary: Summarize(input), Rationale: takeRationale(pending)}}
	}
	return nil
}
