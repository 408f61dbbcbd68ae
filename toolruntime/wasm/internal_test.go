package wasm

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tetratelabs/wazero/sys"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolcode"
	"github.com/metatools-go/metatools/toolruntime"
)

func TestGuestError(t *testing.T) {
	ended := errors.Errorf(errors.Unavailable, "the guest ended without answering")
	protocol := errors.Errorf(errors.InvalidArgument, "malformed message")
	oom := "runtime: out of memory: cannot allocate 4194304-byte block (62914560 in use)\nfatal error: out of memory\n\ngoroutine 1 gp=0x1 m=0 mp=0x2 [running]:\n"
	tests := []struct {
		name            string
		hostErr, exit   error
		stderr          string
		code            errors.Code
		limit, contains string
	}{
		{"out of memory", ended, sys.NewExitError(2), oom, errors.ResourceExhausted, toolruntime.LimitMemory, "memory limit reached"},
		{"out of memory, message cut", protocol, sys.NewExitError(2), oom, errors.ResourceExhausted, toolruntime.LimitMemory, ""},
		{"other fatal error", ended, sys.NewExitError(2), "fatal error: all goroutines are asleep - deadlock!\n", errors.Internal, "", "deadlock"},
		{"panic exit", ended, sys.NewExitError(2), "panic: boom\n", errors.Internal, "", "exited with status 2"},
		{"oom text, other status", ended, sys.NewExitError(1), oom, errors.Internal, "", "status 1"},
		{"closed by the host", protocol, sys.NewExitError(sys.ExitCodeContextCanceled), oom, errors.InvalidArgument, "", "malformed"},
		{"deadline", ended, sys.NewExitError(sys.ExitCodeDeadlineExceeded), "", errors.Unavailable, "", "without answering"},
		{"protocol broken, clean exit", protocol, nil, "", errors.InvalidArgument, "", "malformed"},
		{"trap", ended, errors.New("wasm error: unreachable"), "", errors.Internal, "", "unreachable"},
		{"program error", protocol, sys.NewExitError(2), "toolruntime-runner: bad\n", errors.InvalidArgument, "", "malformed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := guestError(tt.hostErr, tt.exit, tt.stderr, 64<<20)
			assert.Equal(t, tt.code, errors.CodeOf(err), "%v", err)
			assert.Equal(t, tt.limit, toolcode.LimitOf(err))
			assert.Contains(t, err.Error(), tt.contains)
		})
	}
}

func TestTail(t *testing.T) {
	tl := newTail(8)
	for _, s := range []string{"abc", "defgh", "ij", "0123456789", "xy"} {
		n, err := tl.Write([]byte(s))
		require.NoError(t, err)
		assert.Equal(t, len(s), n)
	}
	assert.Equal(t, "456789xy", tl.String())
	assert.Equal(t, int64(22), tl.total)
}

func TestPagesFor(t *testing.T) {
	for memory, want := range map[int64]uint32{
		0: 0, PageSize - 1: 0, PageSize: 1, 64 << 20: 1024, 100<<20 + 5: 1600, 4 << 30: maxPages, 1 << 40: maxPages,
	} {
		assert.Equal(t, want, pagesFor(memory), "%d bytes", memory)
	}
}
