package wasm

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// CacheRetention is how long the compiled code of a module stays in the
// cache directory of [WithCacheDir] after a backend last started with it.
// The code of one runner takes about 150 MB, and each new build of the
// runner (a new version of metatools) has code of its own: without
// trimming, the directory would grow with every upgrade.
const CacheRetention = 5 * 24 * time.Hour

// CacheEntries bounds the modules whose compiled code the cache keeps,
// within the retention too: the one starting and the others used most
// recently (about 150 MB each), for the machines that switch between a
// few builds of the runner within days.
const CacheEntries = 3

// cacheEntryNameLen is the length of the name of a module's entry: the
// hexadecimal first half of the SHA-256 of its content.
const cacheEntryNameLen = sha256.Size

// openCacheEntry returns the directory, under dir, of the machine code
// compiled from module, created if need be and marked as used now, and
// removes the entries of other modules unused for [CacheRetention], and
// the least recently used beyond [CacheEntries].
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
	type used struct {
		name string
		at   time.Time
	}
	var kept []used
	for _, e := range others {
		if e.Name() == name || !e.IsDir() || !isCacheEntryName(e.Name()) {
			continue
		}
		info, err := e.Info()
		switch {
		case err != nil:
		case now.Sub(info.ModTime()) > CacheRetention:
			_ = os.RemoveAll(filepath.Join(dir, e.Name()))
		default:
			kept = append(kept, used{e.Name(), info.ModTime()})
		}
	}
	slices.SortFunc(kept, func(a, b used) int { return b.at.Compare(a.at) })
	for _, e := range kept[min(len(kept), CacheEntries-1):] {
		_ = os.RemoveAll(filepath.Join(dir, e.name))
	}
	return entry, nil
}

// isCacheEntryName reports a name openCacheEntry gives an entry.
func isCacheEntryName(name string) bool {
	return len(name) == cacheEntryNameLen && strings.Trim(name, "0123456789abcdef") == ""
}
