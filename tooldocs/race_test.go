package tooldocs_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/tooldocs"
)

// TestConcurrentUse hammers one Store with writers (register, bulk
// register, remove) and readers (describe at every level, costs, examples,
// get, list) at once. Run with -race: it checks that reads never observe
// a half-written entry and that the Store shares nothing with callers.
func TestConcurrentUse(t *testing.T) {
	entries := loadEntries(t)
	s := tooldocs.NewStore(tooldocs.WithResolver(newCatalog(mustTool(t, searchToolJSON))))
	ctx := t.Context()
	const rounds = 100
	var wg sync.WaitGroup
	errs := make(chan error, 64)
	report := func(err error) {
		select {
		case errs <- err:
		default:
		}
	}

	for w := range 2 {
		wg.Go(func() {
			for i := range rounds {
				e := entries[(i+w)%len(entries)]
				if err := s.Register(ctx, e); err != nil {
					report(err)
				}
				if i%10 == 0 {
					if err := s.RegisterMany(ctx, entries); err != nil {
						report(err)
					}
				}
				if i%3 == 0 {
					_ = s.Remove(e.Tool.ID()) // may race with another writer's removal
				}
			}
		})
	}
	ids := []string{"github:create_issue", "petstore:addPet", "weather", "fs:read_file", "docs:search"}
	for r := range 4 {
		wg.Go(func() {
			for i := range rounds {
				id := ids[(i+r)%len(ids)]
				for _, level := range tooldocs.Levels() {
					doc, err := s.Describe(ctx, id, level)
					switch {
					case errors.Is(err, errors.ErrNotFound):
						continue
					case err != nil:
						report(err)
						continue
					}
					// Callers own what they get: scribbling on it is safe.
					if len(doc.Tags) > 0 {
						doc.Tags[0] = "scribbled"
					}
					for _, ex := range doc.Examples {
						ex.Args["scribbled"] = true
					}
					_ = doc.Markdown()
				}
				if _, err := s.DescribeWithin(ctx, id, 150); err != nil && !errors.Is(err, errors.ErrNotFound) {
					report(err)
				}
				if _, err := s.Examples(ctx, id, 1); err != nil && !errors.Is(err, errors.ErrNotFound) {
					report(err)
				}
				_, _ = s.Get(id)
				_ = s.List(tooldocs.ListFilter{Source: "mcp:github"})
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}

	require.NoError(t, s.RegisterMany(ctx, entries))
	doc, err := s.Describe(ctx, "github:create_issue", tooldocs.LevelFull)
	require.NoError(t, err)
	assert.Equal(t, []string{"github", "issues", "write"}, doc.Tags)
	for _, ex := range doc.Examples {
		assert.NotContains(t, ex.Args, "scribbled")
	}
}
