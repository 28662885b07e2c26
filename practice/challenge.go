package practice

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/idempotency-lab/lab/sim"
)

// A Challenge is a goal to reach in the lab, in the manner of Learn Git
// Branching's levels: "make setnx lose money in at most 4 steps". The
// person builds a script with the lab's step controls; the engine runs it
// and Won judges the handler's result. Nothing about a solution is
// hard-coded: any script that makes the engine report the outcome wins.
type Challenge struct {
	ID       string
	Title    Text
	Goal     Text   // what to make happen, shown above the lab
	Hint     Text   // a nudge, folded until asked for
	Topic    string // the lesson that explains the failure (a lesson slug)
	Handler  string // the handler the goal is about
	Handlers []string
	MaxSteps int
	// NoCrash forbids crash= on deliver steps: the failure must come from
	// somewhere else (the gateway, a second worker, the producer).
	NoCrash bool
	// Won says whether a run of the script reached the goal, from the
	// result of Handler (verdicts are after settlement: the lab delivers
	// what is left in the queue, as a real broker eventually would).
	Won func(sim.Result) bool
}

// Try is how a script fares against a challenge.
type Try struct {
	Steps   int
	Reached bool // the engine reports the goal's outcome for Handler
	// TooLong and Crashed say why a reached goal does not count: more
	// steps than MaxSteps, or a crash step in a NoCrash challenge.
	TooLong, Crashed bool
	Result           sim.Result
}

// Solved is a reached goal within the rules.
func (o Try) Solved() bool { return o.Reached && !o.TooLong && !o.Crashed }

// Judge applies the challenge's rules to a result of Handler after steps
// steps of sc. The lab already has the result (it replays every card), so
// judging runs nothing.
func (c Challenge) Judge(sc *sim.Script, steps int, res sim.Result) Try {
	o := Try{Steps: steps, Result: res, Reached: c.Won(res), TooLong: steps > c.MaxSteps}
	if c.NoCrash {
		o.Crashed = slices.ContainsFunc(sc.Steps[:steps], func(s sim.Step) bool { return s.Crash != "" })
	}
	return o
}

// Check runs the first steps steps of sc on the challenge's handler and
// judges the result. budget is sim.Options.Budget.
func (c Challenge) Check(ctx context.Context, sc *sim.Script, steps, budget int) (Try, error) {
	run, err := sim.Execute(ctx, sc, sim.Options{Handlers: []string{c.Handler}, Steps: steps, Budget: budget, StepEvents: 1})
	if err != nil {
		return Try{}, err
	}
	if steps == 0 {
		steps = len(sc.Steps)
	}
	for _, res := range run.Results {
		if res.Handler == c.Handler {
			return c.Judge(sc, steps, res), nil
		}
	}
	return Try{}, fmt.Errorf("challenge %s: the run has no result for %s", c.ID, c.Handler)
}

func verdictIs(v sim.Verdict) func(sim.Result) bool {
	return func(r sim.Result) bool { return r.Verdict == v }
}

// challenges are in the order a learner meets them: the failures of the
// lessons, from the first to the last.
var challenges = []Challenge{
	{
		ID:    "naive-twice",
		Title: Text{EN: "Charge twice", RU: "Списать дважды"},
		Goal: Text{EN: "Make naive credit the same top-up twice, in at most 2 steps.",
			RU: "Заставьте naive зачислить одно и то же пополнение дважды, не больше чем за 2 шага."},
		Hint: Text{EN: "Publish a top-up, then let the worker die after the credit but before the ack. What the queue still holds is delivered when the lab settles the run.",
			RU: "Опубликуйте пополнение, затем пусть воркер умрёт после зачисления, но до ack. То, что осталось в очереди, будет доставлено, когда лаборатория доведёт прогон до конца."},
		Topic: "duplicates", Handler: "naive", Handlers: []string{"naive", "unique"}, MaxSteps: 2,
		Won: verdictIs(sim.Duplicate),
	},
	{
		ID:    "broker-id-is-not-a-key",
		Title: Text{EN: "The broker's id is not a key", RU: "Id брокера — не ключ"},
		Goal: Text{EN: "Make broker-key credit twice without crashing any worker, in at most 2 steps.",
			RU: "Заставьте broker-key зачислить дважды, не роняя ни одного воркера, не больше чем за 2 шага."},
		Hint: Text{EN: "broker-key remembers the transport's message id. Who sends the same payment again as a new message?",
			RU: "broker-key запоминает id сообщения в транспорте. Кто отправит тот же платёж заново, новым сообщением?"},
		Topic: "keys", Handler: "broker-key", Handlers: []string{"broker-key", "unique"}, MaxSteps: 2, NoCrash: true,
		Won: verdictIs(sim.Duplicate),
	},
	{
		ID:    "unique-error-dlq",
		Title: Text{EN: "A duplicate in the DLQ", RU: "Дубль в DLQ"},
		Goal: Text{EN: "Make unique-error send a message to the dead-letter queue, in at most 4 steps.",
			RU: "Заставьте unique-error отправить сообщение в очередь недоставленных (DLQ), не больше чем за 4 шага."},
		Hint: Text{EN: "unique-error reports a UNIQUE violation as a failure. Give it a message whose credit is already there.",
			RU: "unique-error считает нарушение UNIQUE ошибкой. Дайте ему сообщение, зачисление по которому уже есть."},
		Topic: "unique", Handler: "unique-error", Handlers: []string{"unique-error", "unique"}, MaxSteps: 4,
		Won: func(r sim.Result) bool { return r.DeadLettered > 0 },
	},
	{
		ID:    "check-then-insert-race",
		Title: Text{EN: "Two workers, one check", RU: "Два воркера, одна проверка"},
		Goal: Text{EN: "Make check-then-insert credit twice without crashing any worker, in at most 2 steps.",
			RU: "Заставьте check-then-insert зачислить дважды, не роняя ни одного воркера, не больше чем за 2 шага."},
		Hint: Text{EN: "A SELECT followed by an INSERT is not atomic. What if two workers hold the same message at once?",
			RU: "SELECT, а за ним INSERT — это не атомарно. А если одно сообщение окажется сразу у двух воркеров?"},
		Topic: "unique", Handler: "check-then-insert", Handlers: []string{"check-then-insert", "unique"}, MaxSteps: 2, NoCrash: true,
		Won: verdictIs(sim.Duplicate),
	},
	{
		ID:    "setnx-loses",
		Title: Text{EN: "Lose a payment", RU: "Потерять платёж"},
		Goal: Text{EN: "Make setnx lose money: a top-up that is never charged, in at most 4 steps.",
			RU: "Заставьте setnx потерять деньги: пополнение, которое так и не списано, не больше чем за 4 шага."},
		Hint: Text{EN: "setnx claims the key as \"processing\" before it charges. What if the worker dies right after the claim?",
			RU: "setnx захватывает ключ как «processing» до списания. А если воркер умрёт сразу после захвата?"},
		Topic: "setnx", Handler: "setnx", Handlers: []string{"setnx", "setnx-token"}, MaxSteps: 4,
		Won: verdictIs(sim.Lost),
	},
	{
		ID:    "setnx-gateway-twice",
		Title: Text{EN: "A timeout that charged", RU: "Таймаут, который списал"},
		Goal: Text{EN: "Make setnx charge the card twice without crashing any worker, in at most 3 steps.",
			RU: "Заставьте setnx списать с карты дважды, не роняя ни одного воркера, не больше чем за 3 шага."},
		Hint: Text{EN: "The gateway can time out after the money has moved. What does setnx do with its claim when a call fails?",
			RU: "Шлюз может ответить таймаутом, когда деньги уже ушли. Что setnx делает со своим ключом, когда вызов не удался?"},
		Topic: "setnx", Handler: "setnx", Handlers: []string{"setnx", "setnx-no-release"}, MaxSteps: 3, NoCrash: true,
		Won: verdictIs(sim.Duplicate),
	},
	{
		ID:    "statemachine-silent",
		Title: Text{EN: "A silent conflict", RU: "Тихий конфликт"},
		Goal: Text{EN: "Make statemachine acknowledge a changed amount as if it were the original, in at most 3 steps.",
			RU: "Заставьте statemachine подтвердить изменённую сумму так, будто это исходное сообщение, не больше чем за 3 шага."},
		Hint: Text{EN: "The state machine never reads the key: it moves the order from CREATED to PAID, and a copy that finds the order PAID already is acked, whatever its amount. Send the same payment again with a different amount.",
			RU: "Машина состояний ключ вовсе не читает: она переводит заказ из CREATED в PAID, а копию, которая застаёт заказ уже в PAID, подтверждает, какой бы ни была её сумма. Отправьте тот же платёж ещё раз с другой суммой."},
		Topic: "statemachine", Handler: "statemachine", Handlers: []string{"statemachine", "inbox"}, MaxSteps: 3,
		Won: verdictIs(sim.SilentConflict),
	},
	{
		ID:    "inbox-quarantine",
		Title: Text{EN: "Into quarantine", RU: "В карантин"},
		Goal: Text{EN: "Make inbox quarantine a message, in at most 4 steps.",
			RU: "Заставьте inbox отправить сообщение в карантин, не больше чем за 4 шага."},
		Hint: Text{EN: "inbox stores a hash of each payload with its key. Quarantine is for a key that comes back with different contents.",
			RU: "inbox хранит хеш содержимого рядом с ключом. Карантин — для ключа, который вернулся с другим содержимым."},
		Topic: "inbox", Handler: "inbox", Handlers: []string{"inbox", "unique"}, MaxSteps: 4,
		Won: func(r sim.Result) bool { return r.Quarantined > 0 },
	},
	{
		ID:    "effect-first-twice",
		Title: Text{EN: "Effect before the mark", RU: "Эффект раньше отметки"},
		Goal: Text{EN: "Make effect-first credit twice, in at most 2 steps.",
			RU: "Заставьте effect-first зачислить дважды, не больше чем за 2 шага."},
		Hint: Text{EN: "effect-first charges, then records that it did, in two separate commits. Crash between them.",
			RU: "effect-first сначала списывает, потом записывает, что списал, двумя отдельными коммитами. Уроните воркер между ними."},
		Topic: "failures", Handler: "effect-first", Handlers: []string{"effect-first", "marker-first"}, MaxSteps: 2,
		Won: verdictIs(sim.Duplicate),
	},
	{
		ID:    "marker-first-loses",
		Title: Text{EN: "Mark before the effect", RU: "Отметка раньше эффекта"},
		Goal: Text{EN: "Make marker-first lose a top-up, in at most 2 steps.",
			RU: "Заставьте marker-first потерять пополнение, не больше чем за 2 шага."},
		Hint: Text{EN: "marker-first records the message as processed before it credits. What if nothing follows the record?",
			RU: "marker-first отмечает сообщение обработанным до зачисления. А если после отметки ничего не случится?"},
		Topic: "failures", Handler: "marker-first", Handlers: []string{"marker-first", "effect-first"}, MaxSteps: 2,
		Won: verdictIs(sim.Lost),
	},
}

// Challenges lists every challenge, in order.
func Challenges() []Challenge { return slices.Clone(challenges) }

// FindChallenge returns the challenge with an id, or an error naming the
// valid ids.
func FindChallenge(id string) (Challenge, error) {
	for _, c := range challenges {
		if c.ID == id {
			return c, nil
		}
	}
	ids := make([]string, len(challenges))
	for i, c := range challenges {
		ids[i] = c.ID
	}
	return Challenge{}, fmt.Errorf("unknown challenge %q; valid challenges: %s", id, strings.Join(ids, ", "))
}
