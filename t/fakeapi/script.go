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
//
// The reply to a request is the step whose index is the number of tool
// results the request already holds, so the server keeps no state between
// requests; past the last step it says "done". Tool names and argument keys
// are taken from the request's tool list. Blank lines and lines starting
// with "#" are ignored.
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
)

// Step is one scripted reply. Path and Text are set for Write (Text is the
// content), Text for Bash (the command) and Say.
type Step struct {
	Kind, Path, Text string
}

// ParseScript parses a script (see the package comment). Errors name the
// 1-based line.
func ParseScript(src string) ([]Step, error) {
	var steps []Step
	for i, line := range strings.Split(src, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		rest = strings.TrimSpace(rest)
		switch kind {
		case Write:
			path, content, ok := strings.Cut(rest, " ")
			if !ok || path == "" {
				return nil, fmt.Errorf("script line %d: want \"write <path> <content>\"", i+1)
			}
			steps = append(steps, Step{Kind: Write, Path: path, Text: strings.ReplaceAll(content, `\n`, "\n")})
		case Bash, Say:
			if rest == "" {
				return nil, fmt.Errorf("script line %d: %s needs an argument", i+1, kind)
			}
			steps = append(steps, Step{Kind: kind, Text: rest})
		default:
			return nil, fmt.Errorf("script line %d: unknown step %q (want write, bash or say)", i+1, kind)
		}
	}
	return steps, nil
}

// stepAt returns the step to answer with after n tool results.
func stepAt(steps []Step, n int) Step {
	if n < len(steps) {
		return steps[n]
	}
	return Step{Kind: Say, Text: "done"}
}
