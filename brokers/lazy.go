package brokers

import (
	"context"
	"strings"
	"sync"

	"github.com/idempotency-lab/lab/sim"
)

// Lazy is the real brokers a long-running server offers (lab serve's
// pages, broker=): none is started until a page first asks for it, and
// then the one started serves every later page. Each run opens worlds of
// its own on it (RealBroker.Open), so pages running at once never see
// each other's messages. The zero value is ready to use.
type Lazy struct {
	mu       sync.Mutex
	open     map[string]Server
	rabbitmq bool // OfferRabbitMQ added one
}

// Available are the names Open knows, in the order Names lists them, and
// rabbitmq after them once OfferRabbitMQ has added a server.
func (z *Lazy) Available() []string {
	var out []string
	for _, n := range strings.Split(Names, ",") {
		if n = strings.TrimSpace(n); n != "" {
			out = append(out, n)
		}
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.rabbitmq {
		out = append(out, "rabbitmq")
	}
	return out
}

// OfferRabbitMQ adds the RabbitMQ server at url to the brokers offered,
// named rabbitmq (lab serve --rabbitmq): a server someone runs, not one
// the lab starts, so it is checked now, and a URL that does not parse or
// a server that does not answer is an error at once.
func (z *Lazy) OfferRabbitMQ(ctx context.Context, url string) error {
	b, err := NewRabbitMQ(ctx, url)
	if err != nil {
		return err
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.open == nil {
		z.open = map[string]Server{}
	}
	z.open["rabbitmq"] = b
	z.rabbitmq = true
	return nil
}

// Open is the broker name names, started on the first call for it. The
// broker outlives the request that started it: ctx's end does not stop
// it (Close does).
func (z *Lazy) Open(ctx context.Context, name string) (sim.RealBroker, error) {
	z.mu.Lock()
	defer z.mu.Unlock()
	if srv, ok := z.open[name]; ok {
		return srv, nil
	}
	srv, err := Open(context.WithoutCancel(ctx), name)
	if err != nil {
		return nil, err
	}
	if srv == nil {
		return nil, nil // the lab's model
	}
	if z.open == nil {
		z.open = map[string]Server{}
	}
	z.open[name] = srv
	return srv, nil
}

// Started reports whether the broker name has been started.
func (z *Lazy) Started(name string) bool {
	z.mu.Lock()
	defer z.mu.Unlock()
	_, ok := z.open[name]
	return ok
}

// Close stops every broker Open started.
func (z *Lazy) Close() error {
	z.mu.Lock()
	defer z.mu.Unlock()
	var first error
	for name, srv := range z.open {
		if err := srv.Close(); err != nil && first == nil {
			first = err
		}
		delete(z.open, name)
	}
	return first
}
