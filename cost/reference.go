package cost

import (
	"context"
	_ "embed"
	"encoding/json"
	"sync"
)

// Measurement is a whole cost run: what `lab bench --json` prints.
type Measurement struct {
	Handlers  *Report          `json:"handlers"`
	Keys      *KeysReport      `json:"keys,omitempty"`
	Retention *RetentionReport `json:"retention,omitempty"`
}

// MeasureOptions choose a whole cost run: the bench, then the keys
// experiment (KeyRows rows; 0 skips it) and the retention experiment.
type MeasureOptions struct {
	Bench     Options
	KeyRows   int
	Retention bool
}

// Measure runs what opt asks for, on opt.Bench.Engine.
func Measure(ctx context.Context, opt MeasureOptions) (*Measurement, error) {
	var m Measurement
	var err error
	if m.Handlers, err = Bench(ctx, opt.Bench); err != nil {
		return nil, err
	}
	if opt.KeyRows > 0 {
		if m.Keys, err = Keys(ctx, KeysOptions{Rows: opt.KeyRows, Engine: opt.Bench.Engine}); err != nil {
			return nil, err
		}
	}
	if opt.Retention {
		if m.Retention, err = Retention(ctx, RetentionOptions{}); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// ReferenceRun is a measurement committed with the lab: lesson 8 shows
// its charts, with the machine and the command that made it.
type ReferenceRun struct {
	Date     string       `json:"date"`
	Command  string       `json:"command"`
	Note     string       `json:"note"`
	Embedded Measurement  `json:"embedded"`
	Real     *Measurement `json:"real,omitempty"`
}

//go:embed reference.json
var referenceJSON []byte

// Reference returns the committed reference run.
var Reference = sync.OnceValues(func() (*ReferenceRun, error) {
	var r ReferenceRun
	if err := json.Unmarshal(referenceJSON, &r); err != nil {
		return nil, err
	}
	return &r, nil
})
