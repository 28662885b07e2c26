package labview

// Faults by clicking the picture (Raft Scope's way): on a card's lane the
// worker, the broker and the gateway are links. A click appends the very
// step a step control would (the worker dies before its ack on the next
// delivery, the broker redelivers what is in flight, the gateway goes down
// or back up), so the address stays the state: without JavaScript the
// link leads to the address the control's form redirects to; with it,
// static/lab.js presses the control itself (data-button).

import (
	"net/url"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/page"
)

// laneAct is what a click on a part of a card's lane does.
type laneAct struct {
	ID     string // the link's id: "lane-" + what + "-" + the card's handler
	Href   string // the lab's address with the step appended
	Button string // the id of the step control that appends the same step
	Name   string // what the click does, in the reader's language
}

// pictureAct is one click the picture offers: the form a step control
// sends (StepLine reads it), and that control's id.
type pictureAct struct {
	what, button, name string
	form               url.Values
}

// The clicks, by the part clicked.
var (
	actCrash     = pictureAct{"crash", "do-crash-before-ack", "lane.act.crash", url.Values{"verb": {script.VerbDeliver}, "crash": {script.CrashBeforeAck}}}
	actRedeliver = pictureAct{"redeliver", "do-redeliver", "lane.act.redeliver", url.Values{"verb": {script.VerbRedeliver}}}
	actGwDown    = pictureAct{"gateway", "do-gateway-down", "lane.act.gwdown", url.Values{"verb": {script.VerbGateway}, "state": {script.GatewayDown}}}
	actGwUp      = pictureAct{"gateway", "do-gateway-up", "lane.act.gwup", url.Values{"verb": {script.VerbGateway}, "state": {script.GatewayUp}}}
)

// AppendStep is st with line appended after the step shown (the steps
// after it dropped), showing the new step: where a step control's form
// leads (web/lab's AddStep) and a click on the picture links to. The
// error is the parser's, or CheckCanonical's *page.Error.
func (s *Replayer) AppendStep(st State, line string) (State, error) {
	sc, err := script.Parse(WithSteps(st.Script, st.Step).String() + line + "\n")
	if err == nil {
		err = CheckCanonical(sc)
	}
	if err != nil {
		return st, err
	}
	next := s.Retarget(st, sc)
	next.Step = next.Total()
	return next, nil
}

// Retarget is st with a new script, recognising a preset when the script
// is one unchanged.
func (s *Replayer) Retarget(st State, sc *script.Script) State {
	st = s.SideChanged(st, sc)
	st.Preset = s.ByScript[sc.String()]
	return st
}

// pictureLinks are the addresses the picture's clicks lead to from st,
// by the control each stands for; a click whose step the lab would
// refuse (a script grown past its limit) has none.
func (s *Replayer) pictureLinks(st State) map[string]string {
	out := map[string]string{}
	for _, a := range []pictureAct{actCrash, actRedeliver, actGwDown, actGwUp} {
		line, err := StepLine(a.form, st.Script.API)
		if err != nil {
			continue
		}
		next, err := s.AppendStep(st, line)
		if err != nil {
			continue
		}
		out[a.button] = URL(s.Link(next), next.Step, next.DefaultStep())
	}
	return out
}

// offerActs makes the parts of a card's lane clickable where the step
// controls offer the same step and it would change something on this
// card: the worker when a message is ready for it (the deliver buttons
// are off otherwise), the broker when a message is in flight (as the
// redeliver button), the gateway whenever the lane shows it (down when
// up, up when down or timing out).
func (l *laneView) offerActs(t page.Text, v View, links map[string]string, res sim.Result, gatewayMode string) {
	gw := actGwDown
	if gatewayMode == script.GatewayDown || gatewayMode == script.GatewayTimeout {
		gw = actGwUp
	}
	for i, p := range l.Parts {
		var a pictureAct
		switch {
		case p.ID == partWorker && !v.NothingReady && len(res.Broker.Ready) > 0:
			a = actCrash
		case p.ID == partBroker && !v.NothingInFlight && len(res.Broker.InFlight) > 0:
			a = actRedeliver
		case p.ID == partGateway:
			a = gw
		default:
			continue
		}
		href, ok := links[a.button]
		if !ok {
			continue
		}
		l.Parts[i].Act = &laneAct{ID: "lane-" + a.what + "-" + res.Handler, Href: href, Button: a.button, Name: t.S(a.name)}
		l.Name = t.F("lane.name", res.Handler)
	}
}
