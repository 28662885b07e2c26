package script

import (
	"fmt"
	"strings"
)

// The producer side: where a duplicate, or a loss, is born before any
// consumer sees the message. The order service must do two things, commit
// its order and publish the message, and no transaction spans a database
// and a broker.
//
//	produce pay-1 amount=N [tenant=] [account=] [mode=dual-write|publish-first|outbox] [crash=after-commit|after-publish]
//	relay [crash=after-publish]
//
// dual-write commits the order, then publishes: a crash in between
// (after-commit) loses the message for good. publish-first publishes,
// then commits: a crash in between (after-publish) leaves a message for an
// order that was rolled back. outbox commits the order and an outbox row
// in one transaction and publishes nothing; the relay publishes pending
// rows and marks each sent, so a crash between the two (relay
// crash=after-publish) publishes the row again under the same key: the
// outbox never loses a message and may send one twice, which the
// consumer's defence must absorb.

// Producer modes (Step.Mode).
const (
	ModeDualWrite    = "dual-write"
	ModePublishFirst = "publish-first"
	ModeOutbox       = "outbox"
)

// Producer crash points (Step.Crash of produce and relay).
const (
	CrashAfterCommit  = "after-commit"
	CrashAfterPublish = "after-publish"
)

// The verbs of the producer side.
const (
	VerbProduce = "produce"
	VerbRelay   = "relay"
)

// UsesOutbox says whether any step writes to the outbox or runs its relay:
// the world then has the outbox table.
func (s *Script) UsesOutbox() bool {
	for _, st := range s.Steps {
		if st.Mode == ModeOutbox || st.Verb == VerbRelay {
			return true
		}
	}
	return false
}

// produceStep reads produce.
func (p *parser) produceStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbProduce, Mode: ModeDualWrite, KeyMode: KeyOp}
	if len(args) == 0 || strings.Contains(args[0], "=") {
		return st, errf(n, "script.produce-op-missing", usage(VerbProduce))
	}
	st.Op = args[0]
	if err := checkID(n, "operation id", st.Op); err != nil {
		return st, err
	}
	opts, err := options(n, VerbProduce, args[1:], []string{"amount", "tenant", "account", "mode", "crash"})
	if err != nil {
		return st, err
	}
	if st.Tenant, err = idOption(n, opts, "tenant", DefaultTenant); err != nil {
		return st, err
	}
	if st.Account, err = idOption(n, opts, "account", DefaultAccount); err != nil {
		return st, err
	}
	v, ok := opts["amount"]
	if !ok {
		return st, errf(n, "script.produce-amount-missing", usage(VerbProduce))
	}
	var aerr *Error
	if st.Amount, aerr = parseAmount(v); aerr != nil {
		return st, wrapf(n, aerr, "amount=%s", v)
	}
	if m, ok := opts["mode"]; ok {
		if m != ModeDualWrite && m != ModePublishFirst && m != ModeOutbox {
			return st, errf(n, "script.produce-mode", m)
		}
		st.Mode = m
	}
	if c, ok := opts["crash"]; ok {
		switch {
		case c != CrashAfterCommit && c != CrashAfterPublish:
			return st, errf(n, "script.produce-crash-point", c)
		case c == CrashAfterPublish && st.Mode == ModeOutbox:
			return st, errf(n, "script.produce-crash-outbox")
		}
		st.Crash = c
	}
	ik := intentKey{st.Tenant, st.Op}
	if p.intents[ik] != 0 && p.intents[ik] != phantom {
		return st, errf(n, "script.produce-again", st.Op, st.Tenant)
	}
	// A publish-first producer that dies after its publish never commits
	// the order: the operation may be produced again.
	p.intents[ik] = published
	if st.Mode == ModePublishFirst && st.Crash == CrashAfterPublish {
		p.intents[ik] = phantom
	}
	return st, nil
}

// relayStep reads relay.
func relayStep(n int, args []string) (Step, error) {
	st := Step{Verb: VerbRelay}
	opts, err := options(n, VerbRelay, args, []string{"crash"})
	if err != nil {
		return st, err
	}
	if c, ok := opts["crash"]; ok {
		if c != CrashAfterPublish {
			return st, errf(n, "script.relay-crash-point", c)
		}
		st.Crash = c
	}
	return st, nil
}

// writeProduce writes produce's arguments, as produceStep reads them.
func writeProduce(b *strings.Builder, st Step) {
	fmt.Fprintf(b, " %s amount=%d", st.Op, st.Amount)
	if st.Tenant != DefaultTenant {
		b.WriteString(" tenant=" + st.Tenant)
	}
	if st.Account != DefaultAccount {
		b.WriteString(" account=" + st.Account)
	}
	if st.Mode != ModeDualWrite {
		b.WriteString(" mode=" + st.Mode)
	}
	if st.Crash != "" {
		b.WriteString(" crash=" + st.Crash)
	}
}
