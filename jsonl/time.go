// Package jsonl holds the conventions of git-agent's JSON-lines notes and
// logs (DESIGN.md "Where things live": notes format).
package jsonl

import "time"

// timeLayout is RFC 3339 with exactly nine fractional digits, always UTC.
const timeLayout = "2006-01-02T15:04:05.000000000Z"

// TimeString returns t in UTC as "2006-01-02T15:04:05.000000000Z": fixed
// width (30 bytes for years 0000-9999), so byte order equals time order.
// Go's time.RFC3339Nano trims trailing zeros and so breaks that order.
func TimeString(t time.Time) string {
	return t.UTC().Format(timeLayout)
}
