package timeline

import "github.com/idempotency-lab/lab/web/page"

// Labels are the words the diagram shows, in the reader's language.
type Labels struct {
	Producer, Broker, Worker, SQLite, Redis, Gateway, Clock, Warehouse, Step, Crash string
	// The producer side's own callers of SQLite: the order service and
	// its outbox relay (side rows, as the warehouse's).
	OrderService, Relay string
	// The API side's actors: the client and the server processes.
	Client, Server string
	// Lang is the reader's language ("en" or "ru"): it picks the events'
	// own text in that language.
	Lang string
}

// LabelsIn returns the diagram's words in t's language, from the lab's
// message files (web/labview/messages, tl.producer and on). SQLite and
// Redis are names, the same in every language.
func LabelsIn(t page.Text) Labels {
	return Labels{
		Producer:     t.S("tl.producer"),
		Broker:       t.S("tl.broker"),
		Worker:       t.S("tl.worker"),
		SQLite:       "SQLite",
		Redis:        "Redis",
		Gateway:      t.S("tl.gateway"),
		Clock:        t.S("tl.clock"),
		Warehouse:    t.S("tl.warehouse"),
		OrderService: t.S("tl.orderService"),
		Relay:        t.S("tl.relay"),
		Step:         t.S("tl.step"),
		Crash:        t.S("tl.crash"),
		Client:       t.S("tl.client"),
		Server:       t.S("tl.server"),
		Lang:         t.Lang(),
	}
}
