// Package fakeapi is a scripted, stateless fake of the model APIs that
// coding agents call: the Anthropic Messages API (POST /v1/messages, SSE
// streaming or not; used by Claude Code, opencode and pi) and the OpenAI
// Responses API (POST /v1/responses, SSE; used by Codex CLI). It listens on
// 127.0.0.1 and logs every request as a JSON line.
//
// A script is a list of steps, one per line:
//
//	write <path> <content>     call the agent's file-writing tool ("\n" in content is a newline)
//	bash <command>             call the agent's shell tool
//	say <text>                 answer with text and end the turn
//	why <text>                 the next step's reply starts with this text (its rationale)
//	when <text>                start a section: the steps after it answer a user prompt containing text
//
// The reply to a request is the step whose index is the number of tool
// results the request already holds, so the server keeps no state between
// requests; past the last step it says "done". A section started by "when"
// is chosen instead when a user message containing its text is in the
// request (the latest such message wins among sections); its steps are
// then indexed by the number of tool results after that message. That is
// how a continued session (a repair prompt after a finished turn) gets its
// own steps. Tool names and argument keys are taken from the request's tool
// list. Blank lines and lines starting with "#" are ignored.
package fakeapi

import (
	"fmt"
	"strings"
)

// Step kinds.
const (
	Write = "write"
	Bash  = "bash"
	Say   = "say"
	// When marks the start of a section; Text is its trigger.
	When = "when"
)

// Step is one scripted reply. Path and Text are set for Write (Text is the
// content), Text for Bash (the command), Say and When (the trigger). Why,
// for Write and Bash, is assistant text sent before the tool call.
type Step struct {
	Kind, Path, Text string
	Why              string
}

// ParseScript parses a script (see the package comment). Errors name the
// 1-based line.
func ParseScript(src string) ([]Step, error) {
	var steps []Step
	why := ""
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		if why != "" && kind != Write && kind != Bash {
			return nil, fmt.Errorf("script line %d: why must precede a write or bash step", i+1)
		}
		switch kind {
		case Write:
			path, content, ok := strings.Cut(rest, " ")
			if !ok || path == "" {
				return nil, fmt.Errorf("script line %d: want \"write <path> <content>\"", i+1)
			}
			steps = append(steps, Step{Kind: Write, Path: path, Text: strings.ReplaceAll(content, `\n`, "\n"), Why: why})
		case Bash, Say, When, "why":
			if rest == "" {
				return nil, fmt.Errorf("script line %d: %s needs an argument", i+1, kind)
			}
			if kind == "why" {
				why = rest
				continue
			}
			if kind == Bash {
				steps = append(steps, Step{Kind: kind, Text: rest, Why: why})
			} else {
				steps = append(steps, Step{Kind: kind, Text: rest})
			}
		default:
			return nil, fmt.Errorf("script line %d: unknown step %q (want write, bash, say, why or when)", i+1, kind)
		}
		why = ""
	}
	if why != "" {
		return nil, fmt.Errorf("script ends with a why and no step after it")
	}
	return steps, nil
}

// event is one item of a request's conversation that the script looks at:
// a user message's text (prompt) or a tool result.
type event struct {
	prompt bool
	text   string
}

// pick returns the step to answer a conversation with, the number of tool
// results it was indexed by, and the section's trigger ("" for the first).
func pick(steps []Step, conv []event) (st Step, n int, section string) {
	sections := [][]Step{nil}
	triggers := []string{""}
	for _, s := range steps {
		if s.Kind == When {
			sections, triggers = append(sections, nil), append(triggers, s.Text)
			continue
		}
		sections[len(sections)-1] = append(sections[len(sections)-1], s)
	}
	best, from := 0, -1
	for i, trig := range triggers[1:] {
		for j := len(conv) - 1; j > from; j-- {
			if conv[j].prompt && strings.Contains(conv[j].text, trig) {
				best, from = i+1, j
				break
			}
		}
	}
	for _, e := range conv[from+1:] {
		if !e.prompt {
			n++
		}
	}
	ss := sections[best]
	if n < len(ss) {
		return ss[n], n, triggers[best]
	}
	return Step{Kind: Say, Text: "done"}, n, triggers[best]
}

// results returns the texts of conv's tool results.
func results(conv []event) []string {
	var out []string
	for _, e := range conv {
		if !e.prompt {
			out = append(out, e.text)
		}
	}
	return out
}

// lastPrompt returns the last user prompt of conv, at most 16 KiB of it.
func lastPrompt(conv []event) string {
	for i := len(conv) - 1; i >= 0; i-- {
		if conv[i].prompt {
			s := conv[i].text
			if len(s) > 16<<10 {
				s = s[len(s)-16<<10:]
			}
			return s
		}
	}
	return ""
}
