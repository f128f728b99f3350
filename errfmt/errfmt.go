// Package errfmt defines git-agent's user-facing error: a catalog of codes,
// each with its process exit status, and the four-line format of DESIGN.md's
// error contract:
//
//	git-agent: error: <what went wrong, one line>
//	  code: ERR_<UPPER_SNAKE>
//	  context: <what git-agent was doing>
//	  remedy: <the one thing to do next>
//
// Format renders an *Error in that shape and Parse reads it back.
package errfmt

import (
	"errors"
	"fmt"
	"strings"
)

// Error is a user-facing failure. What, Context and Remedy are single lines
// (newlines and control characters are replaced when formatted). Err, when
// set, is the underlying cause; it is reachable through errors.Unwrap but is
// not printed beyond what What already says.
type Error struct {
	Code    Code
	What    string
	Context string
	Remedy  string
	Err     error
}

// New returns an *Error with the given code and lines.
func New(code Code, what, context, remedy string) *Error {
	return &Error{Code: code, What: what, Context: context, Remedy: remedy}
}

// Wrap returns an *Error whose What is what followed by ": " and err's text.
func Wrap(code Code, err error, what, context, remedy string) *Error {
	if err != nil {
		what = what + ": " + err.Error()
	}
	return &Error{Code: code, What: what, Context: context, Remedy: remedy, Err: err}
}

// Error returns the first line's message, without the "git-agent: error:"
// prefix.
func (e *Error) Error() string { return e.What }

// Unwrap returns the underlying cause, or nil.
func (e *Error) Unwrap() error { return e.Err }

// ExitCode returns the process exit status for e's code.
func (e *Error) ExitCode() int { return e.Code.Exit() }

// Format renders e as exactly four lines, each ending in '\n'.
func (e *Error) Format() string {
	return fmt.Sprintf("git-agent: error: %s\n  code: %s\n  context: %s\n  remedy: %s\n",
		oneLine(e.What), e.Code, oneLine(e.Context), oneLine(e.Remedy))
}

// As returns err as an *Error. An error that is not one becomes an *Error
// with code ERR_INTERNAL, so every failure can be printed in the contract's
// shape.
func As(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	return &Error{Code: ErrInternal, What: err.Error(), Context: "running git-agent",
		Remedy: "report this at the git-agent issue tracker with the command you ran", Err: err}
}

// Parse reads the four-line form back into an *Error. It returns an error
// when text is not exactly that shape or the code is not in the catalog.
func Parse(text string) (*Error, error) {
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if len(lines) != 4 {
		return nil, fmt.Errorf("errfmt: want 4 lines, got %d", len(lines))
	}
	prefixes := []string{"git-agent: error: ", "  code: ", "  context: ", "  remedy: "}
	var vals [4]string
	for i, p := range prefixes {
		v, ok := strings.CutPrefix(lines[i], p)
		if !ok {
			return nil, fmt.Errorf("errfmt: line %d does not start with %q", i+1, p)
		}
		vals[i] = v
	}
	code := Code(vals[1])
	if _, ok := catalog[code]; !ok {
		return nil, fmt.Errorf("errfmt: unknown code %q", vals[1])
	}
	return &Error{Code: code, What: vals[0], Context: vals[2], Remedy: vals[3]}, nil
}

// oneLine replaces newlines, tabs and other control characters with spaces
// so each field stays on its line.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
}
