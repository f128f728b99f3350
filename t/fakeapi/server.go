package fakeapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// Server is a running fake model API.
type Server struct {
	// URL is "http://127.0.0.1:<port>", without a trailing slash.
	URL   string
	steps []Step
	srv   *http.Server
	mu    sync.Mutex
	log   io.Writer
}

// Entry is one line of the request log.
type Entry struct {
	Time   string `json:"time"`
	Method string `json:"method"`
	Path   string `json:"path"`
	// API is "anthropic", "openai" or "" (a path the fake does not serve).
	API   string   `json:"api,omitempty"`
	Model string   `json:"model,omitempty"`
	Tools []string `json:"tools,omitempty"`
	// Step is the script index: the number of tool results in the request,
	// or in a "when" section those after its prompt.
	Step int `json:"step"`
	// Section is the trigger of the script section answered ("" for the first).
	Section string `json:"section,omitempty"`
	// Prompt is the request's last user message text (its last 16 KiB).
	Prompt string `json:"prompt,omitempty"`
	// Results are the texts of those tool results, in order.
	Results []string `json:"results,omitempty"`
	// Reply is what the fake answered: "say: <text>", "call <tool> <args>", or an error.
	Reply  string `json:"reply,omitempty"`
	Status int    `json:"status"`
}

// Start listens on 127.0.0.1 (a free port) and serves steps until ctx is
// done or Close is called. Each request is appended to log as a JSON Entry
// line (log may be nil).
func Start(ctx context.Context, steps []Step, log io.Writer) (*Server, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	if log == nil {
		log = io.Discard
	}
	s := &Server{URL: "http://" + ln.Addr().String(), steps: steps, log: log}
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/messages/count_tokens", s.countTokens)
	mux.HandleFunc("POST /v1/messages", s.anthropic)
	mux.HandleFunc("POST /v1/responses", s.openai)
	mux.HandleFunc("POST /responses", s.openai)
	mux.HandleFunc("GET /v1/models", s.models)
	mux.HandleFunc("/", s.notFound)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: time.Minute}
	go s.srv.Serve(ln)
	go func() {
		<-ctx.Done()
		s.srv.Close()
	}()
	return s, nil
}

// Close stops the server.
func (s *Server) Close() error { return s.srv.Close() }

// record appends e to the log.
func (s *Server) record(r *http.Request, e Entry) {
	e.Time = time.Now().UTC().Format(time.RFC3339Nano)
	e.Method, e.Path = r.Method, r.URL.Path
	line, _ := json.Marshal(e)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.log.Write(append(line, '\n'))
}

func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	s.record(r, Entry{Status: http.StatusNotFound})
	http.Error(w, `{"error":{"type":"not_found_error","message":"fakeapi: no such endpoint"}}`, http.StatusNotFound)
}

func (s *Server) countTokens(w http.ResponseWriter, r *http.Request) {
	s.record(r, Entry{API: "anthropic", Status: http.StatusOK})
	writeJSON(w, map[string]any{"input_tokens": 10})
}

func (s *Server) models(w http.ResponseWriter, r *http.Request) {
	s.record(r, Entry{Status: http.StatusOK})
	writeJSON(w, map[string]any{"object": "list", "data": []any{}, "has_more": false})
}

// reply decides the answer to a request holding conv and offering tools,
// and fills e's script fields (Step, Section, Results, Prompt, Reply).
func (s *Server) reply(conv []event, tools []Tool, e *Entry) (Step, Call, error) {
	st, n, section := pick(s.steps, conv)
	e.Step, e.Section, e.Results, e.Prompt = n, section, results(conv), lastPrompt(conv)
	for _, t := range tools {
		e.Tools = append(e.Tools, t.Name)
	}
	st, c, err := s.call(st, n, tools)
	e.Reply = describe(st, c, err)
	return st, c, err
}

// call turns step n into a call of one of tools (nothing for Say).
func (s *Server) call(st Step, n int, tools []Tool) (Step, Call, error) {
	if st.Kind == Say {
		return st, Call{}, nil
	}
	c, ok := call(st, tools)
	if !ok {
		names := make([]string, len(tools))
		for i, t := range tools {
			names[i] = t.Name
		}
		return st, c, fmt.Errorf("no tool for step %d (%s) among %v", n, st.Kind, names)
	}
	return st, c, nil
}

// describe returns the log's Reply for a step and call.
func describe(st Step, c Call, err error) string {
	if err != nil {
		return "error: " + err.Error()
	}
	if st.Kind == Say {
		return "say: " + st.Text
	}
	args, _ := json.Marshal(c.Args)
	d := "call " + c.Name + " " + string(args)
	if st.Why != "" {
		d = "say: " + st.Why + "; " + d
	}
	return d
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// sse writes one server-sent event and flushes it.
func sse(w http.ResponseWriter, event string, data any) {
	b, _ := json.Marshal(data)
	fmt.Fprintf(w, "event: %s\ndata: %s\n\n", event, b)
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// decode reads r's JSON body into v, answering 400 on failure.
func decode(w http.ResponseWriter, r *http.Request, v any) bool {
	err := json.NewDecoder(io.LimitReader(r.Body, 64<<20)).Decode(v)
	if err != nil {
		var se *json.SyntaxError
		msg := err.Error()
		if errors.As(err, &se) {
			msg = fmt.Sprintf("syntax error at byte %d", se.Offset)
		}
		http.Error(w, `{"error":{"type":"invalid_request_error","message":"fakeapi: `+msg+`"}}`, http.StatusBadRequest)
		return false
	}
	return true
}

// LogFile opens path for appending request log lines.
func LogFile(path string) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
}
