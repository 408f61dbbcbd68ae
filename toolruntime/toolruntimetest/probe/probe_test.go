package probe

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
)

func TestParseProbe(t *testing.T) {
	cmds, err := parseProbe("pid\n# comment\nwrite /tmp/x some text here\nlog 3 10\n")
	require.NoError(t, err)
	assert.Equal(t, []command{
		{op: "pid", args: []string{}},
		{op: "write", args: []string{"/tmp/x", "some text here"}},
		{op: "log", args: []string{"3", "10"}, n: 3, m: 10},
	}, cmds)
	for _, bad := range []string{"", "nope", "read", "alloc -1", "alloc x", "call 1", "pid 1"} {
		_, err := parseProbe(bad)
		assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err), "program %q", bad)
	}
}

// FuzzParseProbe checks that the parser never panics and refuses with
// code invalid_argument.
func FuzzParseProbe(f *testing.F) {
	for _, s := range []string{"pid", "read /etc/hostname", "write /x a b", "fork 4 tok", "log 1 2\ncall 3 a:b"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, code string) {
		cmds, err := parseProbe(code)
		if err != nil {
			assert.Equal(t, errors.InvalidArgument, errors.CodeOf(err))
			return
		}
		for _, c := range cmds {
			assert.Len(t, c.args, arity[c.op].args)
		}
	})
}
