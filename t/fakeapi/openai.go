package fakeapi

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// openaiRequest is the part of a Responses API request the fake reads.
type openaiRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []Tool `json:"tools"`
	Input  []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	} `json:"input"`
}

// conversation returns the request's user messages (prompt events, their
// input_text parts joined) and *_call_output items (results), in order.
func (q openaiRequest) conversation() []event {
	var out []event
	for _, it := range q.Input {
		switch it.Type {
		case "message":
			if it.Role == "user" {
				out = append(out, event{prompt: true, text: text(it.Content)})
			}
		case "function_call_output", "custom_tool_call_output", "local_shell_call_output":
			var o struct {
				Content string `json:"content"`
			}
			t := text(it.Output)
			if json.Unmarshal(it.Output, &o) == nil && o.Content != "" {
				t = o.Content
			}
			out = append(out, event{text: t})
		}
	}
	return out
}

// openai serves POST /v1/responses (always as an SSE stream: Codex streams).
func (s *Server) openai(w http.ResponseWriter, r *http.Request) {
	var q openaiRequest
	if !decode(w, r, &q) {
		s.record(r, Entry{API: "openai", Status: http.StatusBadRequest})
		return
	}
	e := Entry{API: "openai", Model: q.Model, Status: http.StatusOK}
	conv := q.conversation()
	st, c, err := s.reply(conv, q.Tools, &e)
	n := len(conv) // ids grow with the conversation
	if err != nil {
		e.Status = http.StatusBadRequest
		s.record(r, e)
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"fakeapi: no tool fits the script"}}`, http.StatusBadRequest)
		return
	}
	s.record(r, e)
	var items []map[string]any
	if st.Kind == Say || st.Why != "" {
		t := st.Text
		if st.Kind != Say {
			t = st.Why
		}
		items = append(items, map[string]any{"type": "message", "id": fmt.Sprintf("msg_fake_%d", n), "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": t, "annotations": []any{}}}})
	}
	if st.Kind != Say {
		args, _ := json.Marshal(c.Args)
		items = append(items, map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_fake_%d", n), "call_id": fmt.Sprintf("call_fake_%d", n),
			"name": c.Name, "arguments": string(args), "status": "completed"})
	}
	resp := map[string]any{"id": fmt.Sprintf("resp_fake_%d", n), "object": "response", "model": q.Model, "status": "in_progress", "output": []any{}}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	sse(w, "response.created", map[string]any{"type": "response.created", "response": resp})
	var output []any
	for i, item := range items {
		sse(w, "response.output_item.added", map[string]any{"type": "response.output_item.added", "output_index": i, "item": item})
		if item["type"] == "message" {
			t := item["content"].([]any)[0].(map[string]any)["text"]
			sse(w, "response.output_text.delta", map[string]any{"type": "response.output_text.delta", "item_id": item["id"],
				"output_index": i, "content_index": 0, "delta": t})
		}
		sse(w, "response.output_item.done", map[string]any{"type": "response.output_item.done", "output_index": i, "item": item})
		output = append(output, item)
	}
	done := map[string]any{"id": resp["id"], "object": "response", "model": q.Model, "status": "completed", "output": output,
		"usage": map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
			"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}}
	sse(w, "response.completed", map[string]any{"type": "response.completed", "response": done})
}
