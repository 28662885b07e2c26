package page

import (
	"strconv"

	"github.com/idempotency-lab/lab/sim"
)

// How a verdict reads on a card, in a practice result and on the
// projector: its symbol and the sentence that explains it.

// ResultSymbol is verdictSymbol with a duplicate's real size: ×3 when the
// settled balance is three times the expected one, +50.00 when the excess
// is no whole multiple of it.
func ResultSymbol(res sim.Result) string {
	if res.Verdict != sim.Duplicate || res.Expected <= 0 || res.Settled <= res.Expected {
		return VerdictSymbol(res.Verdict)
	}
	if res.Settled%res.Expected == 0 {
		return "×" + strconv.FormatInt(res.Settled/res.Expected, 10)
	}
	return "+" + Money(res.Settled-res.Expected)
}

func VerdictSymbol(v sim.Verdict) string {
	switch v {
	case sim.OK:
		return "✓"
	case sim.Duplicate:
		return "×2"
	case sim.Lost:
		return "−"
	case sim.Poison:
		return "☠"
	case sim.SilentConflict:
		return "≠"
	case sim.WrongStatus:
		return "⚠"
	}
	return "?"
}

// VerdictReason explains a verdict in the reader's language from the
// result's numbers (the engine's own Reason is English only).
func VerdictReason(t Text, res sim.Result) string {
	if (res.Verdict == sim.Duplicate || res.Verdict == sim.Lost) && res.Settled == res.Expected {
		return t.F("why.cancel", Money(res.Settled))
	}
	switch res.Verdict {
	case sim.OK:
		return t.F("why.ok", Money(res.Settled))
	case sim.Duplicate:
		return t.F("why.duplicate", Money(res.Settled), Money(res.Settled-res.Expected), Money(res.Expected))
	case sim.Lost:
		return t.F("why.lost", Money(res.Settled), Money(res.Expected-res.Settled), Money(res.Expected))
	case sim.Poison:
		return t.S("why.poison")
	case sim.SilentConflict:
		if n := res.Conflicts; n > 1 {
			return t.F("why.silent-conflict.n", n)
		}
		return t.S("why.silent-conflict")
	case sim.WrongStatus:
		// sim's words, in the reader's language.
		lang := "en"
		if t.Is(RU) {
			lang = "ru"
		}
		return res.Verdict.Explain(lang)
	}
	return res.Reason
}
