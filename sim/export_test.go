package sim

// WithDeliveryHook returns opt with f called at the start of every
// delivery. The worlds run in parallel, so f must be safe for concurrent
// use.
func WithDeliveryHook(opt Options, f func()) Options {
	opt.onDeliver = f
	return opt
}

// OpenAfterSettlement counts the messages of r still ready or in flight
// after settlement: none, unless the engine is wrong.
func OpenAfterSettlement(r Result) int { return r.open }
