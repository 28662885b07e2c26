package check

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// The alphabet: the steps a script may take next, drawn from the script
// language. It is small on purpose, so that every script up to depth 4
// can run: one or two operations (a second one under a second tenant
// with the same id, the tenant collision), a repeat of each and a changed
// payload, every delivery with every crash point, the broker's moves,
// time across each TTL of the header, and the gateway's modes for the
// handlers that call it.
func (s *searcher) alphabet(prefix []string) []string {
	type op struct{ id, tenant string }
	var ops []op
	for _, line := range prefix {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "publish" {
			o := op{id: f[1]}
			for _, w := range f[2:] {
				if t, ok := strings.CutPrefix(w, "tenant="); ok {
					o.tenant = t
				}
			}
			ops = append(ops, o)
		}
	}
	// Deliveries first: of two stories as short, the one the lectures tell
	// (a crash, a redelivery) is found first.
	out := []string{"deliver", "deliver crash=before-ack", "deliver crash=before-effect", "deliver crash=after-effect",
		"redeliver", "deliver-concurrent", "deliver-concurrent same", "dlq-replay", "drain"}
	for _, o := range ops {
		t := ""
		if o.tenant != "" {
			t = " tenant=" + o.tenant
		}
		out = append(out, "retry "+o.id+t, "change-payload "+o.id+" amount=15000"+t)
	}
	switch len(ops) {
	case 0:
		out = append(out, "publish a amount=10000")
	case 1:
		out = append(out, "publish b amount=5000", "publish a amount=5000 tenant=globex account=bob")
	}
	for _, ttl := range s.ttls() {
		out = append(out, "advance "+minutes(ttl+time.Minute))
	}
	if s.gateway {
		out = append(out, "gateway down", "gateway up", "gateway timeout")
	}
	return out
}

// ttls are the header's lifetimes that time can run past: the Redis
// claim's and the done mark's, and the inbox's retention when set.
func (s *searcher) ttls() []time.Duration {
	var out []time.Duration
	for _, d := range []time.Duration{s.header.ProcessingTTL, s.header.DoneTTL, s.header.InboxRetention} {
		if d > 0 && !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	return out
}

func minutes(d time.Duration) string { return fmt.Sprintf("%dm", int64(d/time.Minute)) }
