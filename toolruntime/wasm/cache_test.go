package wasm

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCacheEntries(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 11, 27, 12, 0, 0, 0, time.UTC)
	module := []byte("\x00asm the runner")

	// entry makes a directory (or a file) in dir, last used age ago.
	entry := func(name string, age time.Duration, isDir bool) string {
		path := filepath.Join(dir, name)
		if isDir {
			require.NoError(t, os.MkdirAll(filepath.Join(path, "wazero-v1-amd64-linux"), 0o700))
		} else {
			require.NoError(t, os.WriteFile(path, []byte("x"), 0o600))
		}
		require.NoError(t, os.Chtimes(path, now.Add(-age), now.Add(-age)))
		return path
	}
	// The first open names the entry; an entry of the module itself is
	// kept however old it is.
	own, err := openCacheEntry(dir, module, now)
	require.NoError(t, err)
	require.NoError(t, os.Chtimes(own, now.Add(-30*24*time.Hour), now.Add(-30*24*time.Hour)))

	stale := entry("0123456789abcdef0123456789abcdef", CacheRetention+time.Hour, true)
	recent := entry("fedcba9876543210fedcba9876543210", CacheRetention-time.Hour, true)
	notOurs := entry("notes", 30*24*time.Hour, true)
	upper := entry("0123456789ABCDEF0123456789ABCDEF", 30*24*time.Hour, true)
	file := entry("00000000000000000000000000000000", 30*24*time.Hour, false)

	again, err := openCacheEntry(dir, module, now)
	require.NoError(t, err)
	assert.Equal(t, own, again, "a module keeps its entry")
	info, err := os.Stat(own)
	require.NoError(t, err)
	assert.True(t, info.ModTime().Equal(now), "the entry is marked as used: %v", info.ModTime())

	assert.NoDirExists(t, stale, "an entry unused for longer than the retention is removed")
	for _, kept := range []string{recent, notOurs, upper} {
		assert.DirExists(t, kept)
	}
	assert.FileExists(t, file, "only directories are entries")

	other, err := openCacheEntry(dir, []byte("\x00asm another runner"), now.Add(CacheRetention-time.Minute))
	require.NoError(t, err)
	assert.NotEqual(t, own, other, "each module has an entry of its own")
	assert.DirExists(t, own, "used within the retention")
	assert.NoDirExists(t, recent)
}

// TestCacheEntriesBounded shows the cache keeping the entries of the
// modules used most recently, within the retention, up to CacheEntries.
func TestCacheEntriesBounded(t *testing.T) {
	dir := t.TempDir()
	now := time.Date(2026, 12, 5, 12, 0, 0, 0, time.UTC)
	var entries []string
	for i := range CacheEntries + 2 {
		path, err := openCacheEntry(dir, []byte{0, 'a', 's', 'm', byte(i)}, now.Add(time.Duration(i)*time.Hour))
		require.NoError(t, err)
		entries = append(entries, path)
	}
	for i, path := range entries {
		if i < len(entries)-CacheEntries {
			assert.NoDirExists(t, path, "entry %d, among the least recently used", i)
		} else {
			assert.DirExists(t, path, "entry %d, among the %d most recently used", i, CacheEntries)
		}
	}
}

func TestCacheDirNotADirectory(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o600))
	_, err := openCacheEntry(file, []byte("m"), time.Now())
	require.Error(t, err)
}
