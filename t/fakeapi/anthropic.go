package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// anthropicRequest is the part of a Messages API request the fake reads.
// Content is a string or a list of blocks; a "system" role message inside
// messages is accepted like any other.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Tools    []Tool `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// toolResults returns the texts of the request's tool_result blocks.
func (q anthropicRequest) toolResults() []string {
	var out []string
	for _, m := range q.Messages {
		var blocks []struct {
			Type    string          `json:"type"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type == "tool_result" {
				out = append(out, text(b.Content))
			}
		}
	}
	return out
}

// text flattens a string or a list of {type:"text",text} blocks.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Text string `json:"text"`
	}
	_ = json.Unmarshal(raw, &blocks)
	for _, b := range blocks {
		s += b.Text
	}
	return s
}

// anthropic serves POST /v1/messages.
func (s *Server) anthropic(w http.ResponseWriter, r *http.Request) {
	var q anthropicRequest
	if !decode(w, r, &q) {
		s.record(r, Entry{API: "anthropic", Status: http.StatusBadRequest})
		return
	}
	results := q.toolResults()
	n := len(results)
	st, c, err := s.reply(n, q.Tools)
	e := Entry{API: "anthropic", Model: q.Model, Step: n, Results: results, Reply: describe(st, c, err), Status: http.StatusOK}
	for _, t := range q.Tools {
		e.Tools = append(e.Tools, t.Name)
	}
	if err != nil {
		e.Status = http.StatusBadRequest
		s.record(r, e)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"fakeapi: no tool fits the script"}}`, http.StatusBadRequest)
		return
	}
	s.record(r, e)
	id := fmt.Sprintf("msg_fake_%d", n)
	var block map[string]any
	stop := "end_turn"
	if st.Kind == Say {
		block = map[string]any{"type": "text", "text": st.Text}
	} else {
		stop = "tool_use"
		block = map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", n), "name": c.Name, "input": c.Args}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !q.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": q.Model,
			"content": []any{block}, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": q.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	if st.Kind == Say {
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "text", "text": ""}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "text_delta", "text": st.Text}})
	} else {
		args, _ := json.Marshal(c.Args)
		sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": 0,
			"content_block": map[string]any{"type": "tool_use", "id": block["id"], "name": c.Name, "input": map[string]any{}}})
		sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": 0,
			"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
	}
	sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": 0})
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
