package toolindex_test

import (
	"fmt"
	"strings"

	"github.com/metatools-go/metatools/toolindex"
	"github.com/metatools-go/metatools/toolindex/toolindextest"
	"github.com/metatools-go/metatools/toolmodel"
)

// Shorthands for the helpers of toolindextest.
var (
	newTool      = toolindextest.NewTool
	localBackend = toolindextest.LocalBackend
	mcpBackend   = toolindextest.MCPBackend
)

func reg(t toolmodel.Tool, b toolmodel.ToolBackend) toolindex.Registration {
	return toolindex.Registration{Tool: t, Backend: b}
}

func ids(items []toolindex.Summary) []string {
	out := make([]string, len(items))
	for i, s := range items {
		out[i] = s.ID
	}
	return out
}

// Vocabulary of the synthetic catalogue: realistic tool names are a verb
// and an object, in a namespace named after a service.
var (
	synthVerbs    = []string{"create", "get", "list", "update", "delete", "search", "send", "upload", "download", "archive", "approve", "assign", "close", "merge", "sync", "export"}
	synthObjects  = []string{"issue", "pull_request", "repository", "file", "message", "channel", "user", "invoice", "payment", "ticket", "event", "calendar", "email", "contact", "report", "dashboard", "deployment", "secret", "bucket", "table", "query", "alert", "incident", "comment"}
	synthServices = []string{"github", "gitlab", "slack", "stripe", "jira", "gcal", "gmail", "hubspot", "grafana", "vercel", "vault", "s3", "bigquery", "pagerduty", "notion", "linear"}
	synthFiller   = []string{"quickly", "securely", "for the current account", "with pagination", "using the REST API", "in bulk", "by identifier", "matching a filter"}
)

// synthCatalogue returns n distinct, valid tools that look like a real
// catalogue: every (service, verb, object) combination once, then again
// with a version suffix.
func synthCatalogue(n int) []toolmodel.Tool {
	tools := make([]toolmodel.Tool, n)
	combos := len(synthServices) * len(synthVerbs) * len(synthObjects)
	for i := range tools {
		// Visit the combinations in a scattered order (1237 is prime to
		// combos), so that even a small catalogue has every service, verb
		// and object.
		c := (i % combos) * 1237 % combos
		svc := synthServices[c%len(synthServices)]
		verb := synthVerbs[(c/len(synthServices))%len(synthVerbs)]
		obj := synthObjects[c/(len(synthServices)*len(synthVerbs))]
		name := verb + "_" + obj
		if i >= combos {
			name = fmt.Sprintf("%s_v%d", name, i/combos+1)
		}
		desc := fmt.Sprintf("%s a %s in %s %s.", strings.ToUpper(verb[:1])+verb[1:], strings.ReplaceAll(obj, "_", " "), svc, synthFiller[i%len(synthFiller)])
		tools[i] = newTool(svc, name, desc, obj+"_id", "limit", "cursor")
		tools[i].Tags = []string{svc, verb}
	}
	return tools
}
