// Package cost measures what idempotency costs: for each handler, at a
// stated duplicate rate, how fast it handles messages, how many SQL
// statements, Redis commands and transactions a message takes, and what it
// stores per message (Bench); how the key a table is indexed by shapes its
// B-tree (Keys); and how an inbox grows with and without a retention job
// (Retention).
//
// The counters are exact: they come from the engine's trace of what the
// handler ran, and from the database's own page accounting. The timings
// are this machine's, at this moment: a shared machine makes them noisy,
// so compare them as ratios within one run, never across runs.
package cost

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Limits on a bench: they keep a run bounded in memory and time.
const (
	MaxMessages     = 20000
	DefaultMessages = 1000
	// DefaultDuplicates is the share of messages sent twice, in percent.
	DefaultDuplicates = 10
)

// Options choose what Bench measures.
type Options struct {
	Handlers   []string // handler names, "core" or "all"; empty: core
	Messages   int      // distinct messages; 0: DefaultMessages
	Duplicates int      // percent of them sent a second time (a producer's retry); 0: DefaultDuplicates, -1: none
	Engine     *sim.Engine
	// Progress, when set, is called after each handler's run with how
	// many runs are done and how many there are (rounds × handlers).
	Progress func(done, total int)
	// Clock is the stopwatch (time since some fixed moment); nil: the
	// wall clock. Tests give a fake one.
	Clock func() time.Duration
	// Rounds is how many times each handler's run is timed, the handlers
	// taking turns (0: DefaultRounds). The times per message of every
	// round are pooled before the median is taken, so a burst of load
	// that covers one handler's whole run (a run of 1,000 messages takes
	// a tenth of a second) lands in one round of several instead of
	// deciding that handler's figure. The counters and storage are the
	// first round's: the runs are deterministic, every round's are the
	// same.
	Rounds int
}

// Rounds of a bench.
const (
	DefaultRounds = 5
	MaxRounds     = 20
)

// Report is a bench's outcome.
type Report struct {
	Machine    Machine  `json:"machine"`
	Messages   int      `json:"messages"`
	Duplicates int      `json:"duplicates_percent"`
	Copies     int      `json:"copies"` // the second copies sent
	Engine     string   `json:"engine"`
	Rounds     int      `json:"rounds"` // each handler's run timed this many times, times pooled
	Handlers   []Result `json:"handlers"`
}

// Machine is where a report was measured.
type Machine struct {
	OS   string `json:"os"`
	Arch string `json:"arch"`
	CPUs int    `json:"cpus"`
	Go   string `json:"go"`
}

// ThisMachine describes the machine the process runs on.
func ThisMachine() Machine {
	return Machine{OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
}

// Result is one handler's figures. Per-message figures divide by the
// deliveries (every copy is a message the handler had to look at); the
// storage figures divide by the distinct messages.
type Result struct {
	Handler    string `json:"handler"`
	Verdict    string `json:"verdict"` // the run's verdict: a bench that loses money measured the wrong thing
	Deliveries int    `json:"deliveries"`

	// PerSecond is 1 s over the median time per message (P50), not the
	// messages over their total time: see perSecond.
	PerSecond float64 `json:"messages_per_second"`
	P50       float64 `json:"p50_ms"`
	P99       float64 `json:"p99_ms"`

	SQL          int     `json:"sql_statements"`
	Redis        int     `json:"redis_commands"`
	Transactions int     `json:"transactions"`
	SQLPer       float64 `json:"sql_per_message"`
	RedisPer     float64 `json:"redis_per_message"`
	TxPer        float64 `json:"transactions_per_message"`

	Tables      []sim.TableStorage `json:"tables"`
	Rows        int64              `json:"rows"`
	Bytes       int64              `json:"bytes"`
	BytesPer    float64            `json:"bytes_per_message"`
	RedisKeys   int                `json:"redis_keys"`
	RedisBytes  int64              `json:"redis_bytes,omitempty"` // a real server's MEMORY USAGE; 0 on miniredis
	RedisPerKey float64            `json:"redis_bytes_per_key,omitempty"`
}

// Script is the bench's scenario: n top-ups, each published and
// delivered, and after every one whose turn comes (dup percent of them,
// spread evenly) a producer's retry of it, delivered too. The gateway and
// the clock stay as they are.
func Script(n, dup int) (*script.Script, int) {
	s := &script.Script{MaxDeliveries: script.DefaultMaxDeliveries, ProcessingTTL: script.DefaultProcessingTTL,
		DoneTTL: script.DefaultDoneTTL, KeyTTL: script.DefaultKeyTTL}
	copies := 0
	for i := 1; i <= n; i++ {
		op := fmt.Sprintf("m-%d", i)
		account := fmt.Sprintf("acc-%d", i%10)
		s.Steps = append(s.Steps,
			script.Step{Verb: script.VerbPublish, Op: op, Tenant: script.DefaultTenant, Account: account, Amount: 100, KeyMode: script.KeyOp},
			script.Step{Verb: script.VerbDeliver})
		// Bresenham's spread: the i-th message has a copy when the count
		// of copies due so far grows.
		if dup > 0 && i*dup/100 > (i-1)*dup/100 {
			copies++
			s.Steps = append(s.Steps, script.Step{Verb: script.VerbRetry, Op: op, Tenant: script.DefaultTenant}, script.Step{Verb: script.VerbDeliver})
		}
	}
	for i := range s.Steps {
		s.Steps[i].Line = i + 1
	}
	return s, copies
}

// Bench runs the scenario on each handler, one at a time so that their
// timings do not share the machine, and reports the figures.
func Bench(ctx context.Context, opt Options) (*Report, error) {
	if opt.Messages == 0 {
		opt.Messages = DefaultMessages
	}
	switch {
	case opt.Messages < 1 || opt.Messages > MaxMessages:
		return nil, badInput{fmt.Errorf("messages: %d is out of range: from 1 to %d", opt.Messages, MaxMessages)}
	case opt.Duplicates < -1 || opt.Duplicates > 100:
		return nil, badInput{fmt.Errorf("duplicates: %d%% is out of range: from 0%% to 100%%", opt.Duplicates)}
	case opt.Rounds < 0 || opt.Rounds > MaxRounds:
		return nil, badInput{fmt.Errorf("rounds: %d is out of range: from 1 to %d", opt.Rounds, MaxRounds)}
	}
	rounds := opt.Rounds
	if rounds == 0 {
		rounds = DefaultRounds
	}
	dup := opt.Duplicates
	switch {
	case dup == 0:
		dup = DefaultDuplicates
	case dup < 0:
		dup = 0 // none
	}
	hs, err := sim.Handlers(opt.Handlers)
	if err != nil {
		return nil, badInput{err}
	}
	clock := opt.Clock
	if clock == nil {
		start := time.Now()
		clock = func() time.Duration { return time.Since(start) }
	}
	s, copies := Script(opt.Messages, dup)
	rep := &Report{Machine: ThisMachine(), Messages: opt.Messages, Duplicates: dup, Copies: copies, Engine: "embedded", Rounds: rounds}
	if opt.Engine != nil {
		rep.Engine = "real"
	}
	first := make([]sim.Result, len(hs))
	took := make([][]time.Duration, len(hs))
	done := 0
	for round := range rounds {
		for j := range hs {
			// Every other round in the reverse order: no handler always
			// runs right after another one's garbage.
			i := j
			if round%2 == 1 {
				i = len(hs) - 1 - j
			}
			h := hs[i]
			run, err := sim.Execute(ctx, s, sim.Options{Handlers: []string{h.Name}, Budget: -1, Engine: opt.Engine,
				Stopwatch: clock, Storage: round == 0})
			if err != nil {
				return nil, fmt.Errorf("%s: %w", h.Name, err)
			}
			if round == 0 {
				first[i] = run.Results[0]
			}
			took[i] = append(took[i], deliveryTimes(run.Results[0])...)
			done++
			if opt.Progress != nil {
				opt.Progress(done, rounds*len(hs))
			}
		}
	}
	for i, h := range hs {
		rep.Handlers = append(rep.Handlers, measure(first[i], h, took[i]))
	}
	return rep, nil
}

// deliveryTimes are a run's deliver steps' times, in the run's order.
func deliveryTimes(r sim.Result) []time.Duration {
	var took []time.Duration
	for _, tr := range r.Trace {
		if strings.HasPrefix(tr.Text, script.VerbDeliver) {
			took = append(took, tr.Took)
		}
	}
	return took
}

// measure turns a run into figures: the calls its workers made in its
// deliver steps, and the times per message took (every round's deliver
// steps, pooled).
func measure(r sim.Result, h handlers.Info, took []time.Duration) Result {
	res := Result{Handler: h.Name, Verdict: string(r.Verdict), Deliveries: r.Deliveries, Tables: []sim.TableStorage{}}
	n := 0 // the run's deliver steps
	for _, tr := range r.Trace {
		if !strings.HasPrefix(tr.Text, script.VerbDeliver) {
			continue
		}
		n++
		for _, e := range tr.Events {
			if !strings.HasPrefix(e.Actor, "worker") {
				continue
			}
			switch e.Kind {
			case sim.KindSQL:
				res.SQL++
				if e.Text == "BEGIN" {
					res.Transactions++
				}
			case sim.KindRedis:
				res.Redis++
				if strings.HasPrefix(e.Text, "MULTI") {
					res.Transactions++
				}
			}
		}
	}
	if n > 0 {
		res.SQLPer, res.RedisPer, res.TxPer = float64(res.SQL)/float64(n), float64(res.Redis)/float64(n), float64(res.Transactions)/float64(n)
	}
	if len(took) > 0 {
		took = slices.Clone(took)
		slices.Sort(took)
		res.PerSecond = perSecond(took)
		res.P50, res.P99 = ms(percentile(took, 50)), ms(percentile(took, 99))
	}
	if st := r.Storage; st != nil {
		res.Rows, res.Bytes = st.Rows(), st.Bytes()
		if st.Tables != nil {
			res.Tables = st.Tables
		}
		res.RedisKeys, res.RedisBytes = st.RedisKeys, st.RedisBytes
		if st.RedisKeys > 0 && st.RedisBytes > 0 {
			res.RedisPerKey = float64(st.RedisBytes) / float64(st.RedisKeys)
		}
	}
	res.BytesPer = float64(res.Bytes) / float64(messages(r))
	return res
}

// messages counts the distinct operations a run published.
func messages(r sim.Result) int {
	n := 0
	for _, tr := range r.Trace {
		if strings.HasPrefix(tr.Text, script.VerbPublish+" ") {
			n++
		}
	}
	return max(n, 1)
}

// perSecond is the messages a second at the median time per message
// (the p50 beside it): 1 s / p50. Not the mean: on a shared machine one
// message descheduled for 100 ms weighs as much as a hundred messages of
// 1 ms, and it swung the figure 2-4x between runs; the median moves only
// when half the messages do. The p99 beside it shows the tail the median
// leaves out. 0 when nothing was timed.
func perSecond(sorted []time.Duration) float64 {
	p50 := percentile(sorted, 50)
	if p50 <= 0 {
		return 0
	}
	return float64(time.Second) / float64(p50)
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p int) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(float64(p)/100*float64(len(sorted)))) - 1
	return sorted[max(i, 0)]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// badInput marks an error in what the caller asked for.
type badInput struct{ error }

func (e badInput) Unwrap() error { return e.error }

// IsBadInput says whether err is the caller's: an option out of range or
// an unknown handler.
func IsBadInput(err error) bool {
	var b badInput
	return errors.As(err, &b)
}
