package mcpexec

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServerNotifications receive what the servers of a Manager report outside any call.
//
// Each callback names the server (as configured in the manager) that sent
// the notification. A nil callback ignores that notification, and the
// manager then does not ask servers of the latest protocol version for it.
// Callbacks run on the goroutine that reads the server's messages: they
// must return quickly and must not wait for a request to the same server,
// whose answer that goroutine would read; hand longer work, such as listing
// the server again, to another goroutine.
type ServerNotifications struct {
	// ResourceListChanged is called when a server reports that its list of
	// resources or resource templates changed
	// (notifications/resources/list_changed).
	ResourceListChanged func(server string)
	// PromptListChanged is called when a server reports that its list of
	// prompts changed (notifications/prompts/list_changed).
	PromptListChanged func(server string)
	// ResourceUpdated is called when a resource the manager subscribed to
	// (through [Manager.Session]) changed (notifications/resources/updated).
	ResourceUpdated func(server string, params *mcp.ResourceUpdatedNotificationParams)
	// Reconnected is called when the shared session of a server opens
	// again after the one before it ended: what was subscribed to on the
	// old session is gone, and what the server offers may have changed.
	Reconnected func(server string)
}

// WithServerNotifications sets the callbacks that receive the
// notifications of the manager's servers other than progress and changes
// of their tools (which the manager handles itself): changes of their
// resources and prompts, and updates of subscribed resources. They follow
// every session of every server, reconnections included.
func WithServerNotifications(n ServerNotifications) Option {
	return func(o *options) { o.notifications = n }
}

// clientHandlers sets in opts the handlers that pass a server's
// notifications to the configured callbacks. Handlers are set only for
// callbacks that are set, since a client of the latest protocol version
// opens a notification stream for each handler it has.
func (n ServerNotifications) clientHandlers(server string, opts *mcp.ClientOptions) {
	if fn := n.ResourceListChanged; fn != nil {
		opts.ResourceListChangedHandler = func(context.Context, *mcp.ResourceListChangedRequest) { fn(server) }
	}
	if fn := n.PromptListChanged; fn != nil {
		opts.PromptListChangedHandler = func(context.Context, *mcp.PromptListChangedRequest) { fn(server) }
	}
	if fn := n.ResourceUpdated; fn != nil {
		opts.ResourceUpdatedHandler = func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			if req.Params != nil {
				fn(server, req.Params)
			}
		}
	}
}
