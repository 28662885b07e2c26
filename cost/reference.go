package cost

import (
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
