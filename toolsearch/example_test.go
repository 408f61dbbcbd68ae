package toolsearch_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolsearch"
)

// exampleTools returns a few tools.
func exampleTools() []toolmodel.Tool {
	return []toolmodel.Tool{
		newTool("github", "create_issue", "Create a new issue in a GitHub repository."),
		newTool("github", "list_issues", "List the issues of a repository, filtered by state."),
		newTool("jira", "createTicket", "Open a ticket in a Jira project."),
		newTool("fs", "read_file", "Read the contents of a file."),
	}
}

// An index that searches with BM25: the Searcher is handed to the index,
// which keeps it up to date as tools are registered and removed.
func Example() {
	ctx := context.Background()
	s, err := toolsearch.New()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	idx := toolindex.New(toolindex.WithSearcher(s))
	tool := func(namespace, name, description string) toolindex.Registration {
		t := toolmodel.Tool{
			Tool:      mcp.Tool{Name: name, Description: description, InputSchema: map[string]any{"type": "object"}},
			Namespace: namespace,
		}
		return toolindex.Registration{
			Tool:    t,
			Backend: toolmodel.ToolBackend{Kind: toolmodel.BackendLocal, Local: &toolmodel.LocalBackend{Name: t.ID()}},
		}
	}
	err = idx.RegisterMany(ctx, []toolindex.Registration{
		tool("github", "create_issue", "Create a new issue in a GitHub repository."),
		tool("github", "list_issues", "List the issues of a repository, filtered by state."),
		tool("jira", "createTicket", "Open a ticket in a Jira project."),
		tool("fs", "read_file", "Read the contents of a file."),
	})
	if err != nil {
		log.Fatal(err)
	}
	page, err := idx.Search(ctx, toolindex.SearchRequest{Query: "open a new issue", Limit: 3})
	if err != nil {
		log.Fatal(err)
	}
	for _, item := range page.Items {
		fmt.Println(item.ID)
	}
	// Output:
	// github:create_issue
	// jira:createTicket
	// github:list_issues
}

// The Searcher used on its own, with the namespace filter.
func ExampleSearcher_Search() {
	ctx := context.Background()
	s, err := toolsearch.New()
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	if err := s.Upsert(ctx, exampleTools()); err != nil {
		log.Fatal(err)
	}
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "createIssue", Namespace: "github", Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	for _, h := range hits {
		fmt.Println(h.ID)
	}
	// Output:
	// github:create_issue
	// github:list_issues
}

// An on-disk index keeps its documents across restarts; Prune drops the
// tools that left the catalogue while it was closed.
func ExampleWithPath() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "toolsearch-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := toolsearch.New(toolsearch.WithPath(dir))
	if err != nil {
		log.Fatal(err)
	}
	if err := s.Upsert(ctx, exampleTools()); err != nil {
		log.Fatal(err)
	}
	if err := s.Close(); err != nil {
		log.Fatal(err)
	}

	// Later: reopen, and bring the index in line with the catalogue.
	s, err = toolsearch.New(toolsearch.WithPath(dir))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()
	current := map[string]bool{"github:create_issue": true, "jira:createTicket": true}
	removed, err := s.Prune(ctx, func(id string) bool { return current[id] })
	if err != nil {
		log.Fatal(err)
	}
	hits, err := s.Search(ctx, toolindex.SearchQuery{Text: "issue ticket", Limit: 10})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("removed", removed)
	for _, h := range hits {
		fmt.Println(h.ID)
	}
	// Output:
	// removed 2
	// github:create_issue
	// jira:createTicket
}
