//go:build unix

package wasm

import (
	"syscall"

	"github.com/tetratelabs/wazero/experimental"
)

// mmapAllocator backs a module's linear memory with an anonymous mapping
// of its maximum size, reserved but not committed: the module's memory
// never moves or gets copied when it grows (the Go runtime in the guest
// grows it often while it starts), pages cost host memory only once
// touched, and none of it is on the host's Go heap. The mapping is
// released when the instance is closed.
type mmapAllocator struct{}

func (mmapAllocator) Allocate(_, maxBytes uint64) experimental.LinearMemory {
	if maxBytes == 0 || maxBytes > 1<<32 {
		return nil
	}
	buf, err := syscall.Mmap(-1, 0, int(maxBytes), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON|syscall.MAP_NORESERVE)
	if err != nil {
		// Without the mapping, fall back on wazero's own allocation.
		return nil
	}
	return &mmapMemory{buf: buf}
}

// mmapMemory is one mapping.
type mmapMemory struct{ buf []byte }

// Reallocate returns the first size bytes of the mapping, or nil (the
// grow fails) beyond it.
func (m *mmapMemory) Reallocate(size uint64) []byte {
	if m.buf == nil || size > uint64(len(m.buf)) {
		return nil
	}
	return m.buf[:size]
}

// Free unmaps the memory.
func (m *mmapMemory) Free() {
	if m.buf != nil {
		_ = syscall.Munmap(m.buf)
		m.buf = nil
	}
}

// memoryAllocator returns the allocator of linear memories, nil for
// wazero's default.
func memoryAllocator() experimental.MemoryAllocator { return mmapAllocator{} }
