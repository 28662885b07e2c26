package cost

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Retention: an inbox keeps a row for every message it ever handled, and
// grows until a job deletes the old ones. Retention runs the inbox
// handler through days of steady traffic with the lab's reaper at several
// horizons (the inbox-retention: header) and counts the rows it keeps,
// hour by hour. What a horizon saves in storage it costs in protection: a
// copy that comes back after its row was deleted is credited again (the
// inbox-retention-too-short preset).

// RetentionOptions choose the traffic.
type RetentionOptions struct {
	Hours   int // how long the traffic runs; 0: 72
	PerHour int // messages an hour; 0: 20
	// Horizons are the retention windows to compare; nil: 1h, 6h, 24h
	// and none (0).
	Horizons []time.Duration
}

// Limits on the retention experiment.
const (
	MaxRetentionHours   = 24 * 14
	MaxRetentionPerHour = 200
)

// RetentionReport is the outcome.
type RetentionReport struct {
	Hours   int               `json:"hours"`
	PerHour int               `json:"per_hour"`
	Series  []RetentionSeries `json:"series"`
	// ReplayHorizons are how late the lab's own stories bring a copy
	// back, to set against the windows.
	ReplayHorizons []ReplayHorizon `json:"replay_horizons"`
}

// RetentionSeries is one horizon: the inbox's rows at the end of every
// hour, and its bytes at the end.
type RetentionSeries struct {
	Horizon string  `json:"horizon"` // "none" for no retention job
	Rows    []int64 `json:"rows"`
	Bytes   int64   `json:"bytes"`
}

// ReplayHorizon is how late a copy comes in one of the lab's scenarios.
type ReplayHorizon struct {
	Preset string `json:"preset"`
	Late   string `json:"late"`
	What   string `json:"what"`
}

// Retention runs the experiment.
func Retention(ctx context.Context, opt RetentionOptions) (*RetentionReport, error) {
	if opt.Hours == 0 {
		opt.Hours = 72
	}
	if opt.PerHour == 0 {
		opt.PerHour = 20
	}
	if opt.Horizons == nil {
		opt.Horizons = []time.Duration{time.Hour, 6 * time.Hour, 24 * time.Hour, 0}
	}
	switch {
	case opt.Hours < 1 || opt.Hours > MaxRetentionHours:
		return nil, badInput{fmt.Errorf("hours: %d is out of range: from 1 to %d", opt.Hours, MaxRetentionHours)}
	case opt.PerHour < 1 || opt.PerHour > MaxRetentionPerHour:
		return nil, badInput{fmt.Errorf("per hour: %d is out of range: from 1 to %d", opt.PerHour, MaxRetentionPerHour)}
	}
	rep := &RetentionReport{Hours: opt.Hours, PerHour: opt.PerHour, ReplayHorizons: []ReplayHorizon{
		{Preset: "inbox-retention-too-short", Late: "3d", What: "a message redelivered until the DLQ, replayed three days later"},
		{Preset: "ttl-expired-replay", Late: "25h", What: "a producer's retry after a day"},
		{Preset: "dedup-window-late-retry", Late: "3m", What: "a producer's retry after three minutes"},
	}}
	for _, h := range opt.Horizons {
		s := retentionScript(opt.Hours, opt.PerHour, h)
		run, err := sim.Execute(ctx, s, sim.Options{Handlers: []string{"inbox"}, Budget: -1, Storage: true, RowsEachStep: true})
		if err != nil {
			return nil, err
		}
		r := run.Results[0]
		series := RetentionSeries{Horizon: "none"}
		if h > 0 {
			series.Horizon = horizonText(h)
		}
		for _, tr := range r.Trace {
			if strings.HasPrefix(tr.Text, script.VerbAdvance+" ") { // the end of an hour
				series.Rows = append(series.Rows, tr.Stored)
			}
		}
		if r.Storage != nil {
			series.Bytes = r.Storage.Bytes()
		}
		rep.Series = append(rep.Series, series)
	}
	return rep, nil
}

// retentionScript is hours of steady traffic: each hour perHour top-ups
// published and delivered, then the clock moves an hour (and the reaper
// runs).
func retentionScript(hours, perHour int, horizon time.Duration) *script.Script {
	s := &script.Script{MaxDeliveries: script.DefaultMaxDeliveries, ProcessingTTL: script.DefaultProcessingTTL,
		DoneTTL: script.DefaultDoneTTL, KeyTTL: script.DefaultKeyTTL, InboxRetention: horizon}
	n := 0
	for range hours {
		for range perHour {
			n++
			s.Steps = append(s.Steps,
				script.Step{Verb: script.VerbPublish, Op: fmt.Sprintf("m-%d", n), Tenant: script.DefaultTenant, Account: script.DefaultAccount, Amount: 100, KeyMode: script.KeyOp},
				script.Step{Verb: script.VerbDeliver})
		}
		s.Steps = append(s.Steps, script.Step{Verb: script.VerbAdvance, Advance: time.Hour})
	}
	for i := range s.Steps {
		s.Steps[i].Line = i + 1
	}
	return s
}

func horizonText(d time.Duration) string {
	if d%(24*time.Hour) == 0 {
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	}
	return fmt.Sprintf("%dh", d/time.Hour)
}
