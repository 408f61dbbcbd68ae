//go:build !unix

package wasm

import "github.com/tetratelabs/wazero/experimental"

// memoryAllocator returns nil: wazero allocates linear memories on the Go
// heap, growing them by copy.
func memoryAllocator() experimental.MemoryAllocator { return nil }
