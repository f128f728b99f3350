package config

import "testing"

// FuzzParse checks that Parse never panics and that every error it returns
// is in the 4-line contract's shape.
func FuzzParse(f *testing.F) {
	f.Add([]byte(goodConfig))
	f.Add([]byte("tools = { claude = { mount = [\"/x\"] } }\nchecks = [{command = \"x\"}]\n"))
	f.Add([]byte("[tools.\"my.tool\"]\nenv = [\n'''a\n]'''\n]\nx = 1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		file, err := Parse("f", data)
		if err == nil {
			Widening(file)
			Merge(file).ChecksDigest()
		}
	})
}
