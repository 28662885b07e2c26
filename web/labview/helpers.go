package labview

import (
	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// maxTicks is the most steps the slider marks with a tick each.
const maxTicks = 40

func rowCount(t page.Text, n int) string {
	switch n {
	case 0:
		return t.S("st.norows")
	case 1:
		return t.S("st.row1")
	}
	return t.F("st.rows", n)
}

func markLabel(t page.Text, mark string) string {
	switch mark {
	case handlers.BeforeEffect:
		return t.S("src.before")
	case handlers.AfterEffect:
		return t.S("src.after")
	case handlers.Yield:
		return t.S("src.yield")
	}
	return mark
}

// callOutcome says what the provider did with a charge and, when it
// differs from what that suggests, what the caller heard: a charge whose
// answer was lost is the ambiguous failure.
func callOutcome(t page.Text, c sim.GatewayCall) string {
	var out string
	switch c.Outcome {
	case sim.OutcomeDeduplicated:
		out = t.S("st.out.dedup")
	case sim.OutcomeRefused:
		out = t.S("st.out.refused")
	case sim.OutcomeNotReceived:
		out = t.S("st.out.lost")
	case sim.OutcomeCharged:
		out = t.S("st.charged")
	default:
		out = t.S("st.failed")
		if c.OK {
			out = t.S("st.charged")
		}
	}
	if c.Answer == sim.AnswerTimeout {
		out += " · " + t.S("st.out.timeout")
	}
	return out
}
