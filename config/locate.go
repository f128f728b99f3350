package config

import (
	"strconv"
	"strings"
)

// locate scans TOML text for table headers and key lines and returns the
// position of every key it can place, as dotted paths in the form File.Has
// uses ("tools.claude.mount", "checks[1].name"). The TOML library does not
// export key positions, so this is a small line scanner: it tracks strings,
// multi-line strings, comments and bracket depth well enough to find the
// start of every key written in the file. Keys inside inline tables are not
// placed (lookups fall back to the enclosing key).
func locate(text string) map[string]Position {
	out := map[string]Position{}
	put := func(k string, p Position) {
		if _, ok := out[k]; !ok {
			out[k] = p
		}
	}
	arrays := map[string]int{} // array-of-tables name -> headers seen
	prefix := ""
	inML := ""
	depth := 0
	for n, line := range strings.Split(text, "\n") {
		lineNo := n + 1
		if inML != "" || depth > 0 {
			inML, depth = scanValue(line, inML, depth)
			continue
		}
		trimmed := strings.TrimLeft(line, " \t")
		col := len(line) - len(trimmed) + 1
		switch {
		case trimmed == "" || trimmed[0] == '#':
			continue
		case strings.HasPrefix(trimmed, "[["):
			segs, _ := splitKey(trimmed[2:], ']')
			name := strings.Join(segs, ".")
			idx := arrays[name]
			arrays[name] = idx + 1
			prefix = name + "[" + strconv.Itoa(idx) + "]"
			putParents(put, name, Position{lineNo, col})
			put(prefix, Position{lineNo, col})
		case trimmed[0] == '[':
			segs, _ := splitKey(trimmed[1:], ']')
			prefix = strings.Join(segs, ".")
			putParents(put, prefix, Position{lineNo, col})
		default:
			segs, rest := splitKey(trimmed, '=')
			if len(segs) == 0 {
				continue
			}
			key := strings.Join(segs, ".")
			if prefix != "" {
				key = prefix + "." + key
			}
			putParents(put, key, Position{lineNo, col})
			inML, depth = scanValue(rest, "", 0)
		}
	}
	return out
}

// putParents records key and each dotted prefix of it at p.
func putParents(put func(string, Position), key string, p Position) {
	for i := 0; i < len(key); i++ {
		if key[i] == '.' {
			put(key[:i], p)
		}
	}
	put(key, p)
}

// splitKey reads a dotted key from s up to the first stop byte outside
// quotes and returns its segments (unquoted, trimmed) and the text after
// stop. It returns no segments when stop is not found.
func splitKey(s string, stop byte) ([]string, string) {
	var segs []string
	var cur strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(s) {
				return nil, ""
			}
			cur.WriteString(s[i+1 : j])
			i = j
		case c == '.':
			segs = append(segs, strings.TrimSpace(cur.String()))
			cur.Reset()
		case c == stop:
			return append(segs, strings.TrimSpace(cur.String())), s[i+1:]
		case c == '#' || c == '\n':
			return nil, ""
		default:
			cur.WriteByte(c)
		}
	}
	return nil, ""
}

// scanValue advances the multi-line-string delimiter and bracket depth over
// one line of value text.
func scanValue(s, inML string, depth int) (string, int) {
	for i := 0; i < len(s); {
		if inML != "" {
			j := strings.Index(s[i:], inML)
			if j < 0 {
				return inML, depth
			}
			i += j + 3
			inML = ""
			continue
		}
		c := s[i]
		switch {
		case c == '#':
			return "", depth
		case strings.HasPrefix(s[i:], `"""`) || strings.HasPrefix(s[i:], `'''`):
			inML = s[i : i+3]
			i += 3
			continue
		case c == '"' || c == '\'':
			j := i + 1
			for j < len(s) && s[j] != c {
				if c == '"' && s[j] == '\\' {
					j++
				}
				j++
			}
			i = j
		case c == '[' || c == '{':
			depth++
		case c == ']' || c == '}':
			if depth > 0 {
				depth--
			}
		}
		i++
	}
	return inML, depth
}

// parentKey strips the last segment of a dotted key ("a.b[2].c" -> "a.b[2]"
// -> "a.b" -> "a" -> "").
func parentKey(k string) string {
	if strings.HasSuffix(k, "]") {
		if i := strings.LastIndexByte(k, '['); i >= 0 {
			return k[:i]
		}
	}
	if i := strings.LastIndexByte(k, '.'); i >= 0 {
		return k[:i]
	}
	return ""
}
