package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CacheRetention is how long the compiled code of a module stays in the
// cache directory of [WithCacheDir] after a backend last started with it.
// The code of one runner takes about 150 MB, and each new build of the
// runner (a new version of metatools) has code of its own: without
// trimming, the directory would grow with every upgrade.
const CacheRetention = 5 * 24 * time.Hour

// cacheEntryNameLen is the length of the name of a module's entry: the
// hexadecimal first half of the SHA-256 of its content.
const cacheEntryNameLen = sha256.Size

// openCacheEntry returns the directory, under dir, of the machine code
// compiled from module, created if need be and marked as used now, and
// removes the entries of other modules unused for [CacheRetention].
// Only directories named as entries are removed: dir may hold anything
// else.
func openCacheEntry(dir string, module []byte, now time.Time) (string, error) {
	sum := sha256.Sum256(module)
	name := hex.EncodeToString(sum[:cacheEntryNameLen/2])
	entry := filepath.Join(dir, name)
	if err := os.MkdirAll(entry, 0o700); err != nil {
		return "", err
	}
	if err := os.Chtimes(entry, now, now); err != nil {
		return "", err
	}
	// A cache that cannot be trimmed still serves: errors are ignored,
	// and another process may be trimming it too.
	others, _ := os.ReadDir(dir)
	for _, e := range others {
		if e.Name() == name || !e.IsDir() || !isCacheEntryName(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && now.Sub(info.ModTime()) > CacheRetention {
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		}
	}
	return entry, nil
}

// isCacheEntryName reports a name openCacheEntry gives an entry.
func isCacheEntryName(name string) bool {
	return len(name) == cacheEntryNameLen && strings.Trim(name, "0123456789abcdef") == ""
}
