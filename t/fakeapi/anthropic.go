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

// conversation returns the request's user texts and tool results in
// order: a user message's text blocks (or string content) make one prompt
// event, each tool_result block one result.
func (q anthropicRequest) conversation() []event {
	var out []event
	for _, m := range q.Messages {
		if m.Role != "user" {
			continue
		}
		var s string
		if json.Unmarshal(m.Content, &s) == nil {
			out = append(out, event{prompt: true, text: s})
			continue
		}
		var blocks []struct {
			Type    string          `json:"type"`
			Text    string          `json:"text"`
			Content json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		prompt := ""
		for _, b := range blocks {
			switch b.Type {
			case "tool_result":
				out = append(out, event{text: text(b.Content)})
			case "text":
				prompt += b.Text
			}
		}
		if prompt != "" {
			out = append(out, event{prompt: true, text: prompt})
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
	e := Entry{API: "anthropic", Model: q.Model, Status: http.StatusOK}
	conv := q.conversation()
	st, c, err := s.reply(conv, q.Tools, &e)
	// Ids grow with the conversation, so a continued session never sees
	// one twice.
	n := len(conv)
	if err != nil {
		e.Status = http.StatusBadRequest
		s.record(r, e)
		http.Error(w, `{"type":"error","error":{"type":"invalid_request_error","message":"fakeapi: no tool fits the script"}}`, http.StatusBadRequest)
		return
	}
	s.record(r, e)
	id := fmt.Sprintf("msg_fake_%d", n)
	var blocks []map[string]any
	stop := "end_turn"
	if st.Kind == Say {
		blocks = append(blocks, map[string]any{"type": "text", "text": st.Text})
	} else {
		stop = "tool_use"
		if st.Why != "" {
			blocks = append(blocks, map[string]any{"type": "text", "text": st.Why})
		}
		blocks = append(blocks, map[string]any{"type": "tool_use", "id": fmt.Sprintf("toolu_fake_%d", n), "name": c.Name, "input": c.Args})
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
	if !q.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": q.Model,
			"content": blocks, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "message_start", map[string]any{"type": "message_start", "message": map[string]any{
		"id": id, "type": "message", "role": "assistant", "model": q.Model, "content": []any{},
		"stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for i, b := range blocks {
		if b["type"] == "text" {
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "text", "text": ""}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "text_delta", "text": b["text"]}})
		} else {
			args, _ := json.Marshal(c.Args)
			sse(w, "content_block_start", map[string]any{"type": "content_block_start", "index": i,
				"content_block": map[string]any{"type": "tool_use", "id": b["id"], "name": c.Name, "input": map[string]any{}}})
			sse(w, "content_block_delta", map[string]any{"type": "content_block_delta", "index": i,
				"delta": map[string]any{"type": "input_json_delta", "partial_json": string(args)}})
		}
		sse(w, "content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	sse(w, "message_delta", map[string]any{"type": "message_delta",
		"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	sse(w, "message_stop", map[string]any{"type": "message_stop"})
}
