package script

import (
	"strings"
	"testing"
)

// TestDuplicateStep: duplicate [OP] reads under broker: sqs, the only
// profile whose broker hands out copies with no failure, and the
// canonical form writes it back as written.
func TestDuplicateStep(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		op        string
	}{
		{"any message", "broker: sqs\npublish a amount=100\ndeliver\nduplicate\n", ""},
		{"of an operation", "broker: sqs\npublish a amount=100\npublish b amount=5\ndeliver\nduplicate b\n", "b"},
		// An operation published under another tenant is one duplicate
		// may name, as deliver may.
		{"of another tenant's operation", "broker: sqs\npublish a amount=100 tenant=globex\nduplicate a\n", "a"},
		// The script's own headers over the profile keep it allowed.
		{"sqs with an override", "broker: sqs\nvisibility-timeout: 2m\npublish a amount=100\nduplicate\n", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.src)
			if err != nil {
				t.Fatal(err)
			}
			last := s.Steps[len(s.Steps)-1]
			if last.Verb != VerbDuplicate || last.Op != tt.op {
				t.Errorf("last step %+v, want duplicate of %q", last, tt.op)
			}
			if text := s.String(); text != tt.src {
				t.Errorf("canonical form\n%s\nwant\n%s", text, tt.src)
			}
			again, err := Parse(s.String())
			if err != nil || again.String() != s.String() {
				t.Errorf("the canonical form does not read back the same: %v", err)
			}
		})
	}
}

func TestDuplicateStepErrors(t *testing.T) {
	for _, tt := range []struct {
		name, src string
		en, ru    string // in the message in each language
	}{
		// Every other profile delivers again only after a failure, the
		// lab's own (no header) too; the error names the ones that do.
		{"no broker header", "publish a amount=100\nduplicate\n",
			"line 2: duplicate: under broker: lab a message is delivered again only after a failure (a crash, a timeout, a nack); the profiles whose broker hands out copies with no failure: sqs (as in broker: sqs)",
			"при broker: lab сообщение доставляется снова только после сбоя"},
		{"sqs-fifo", "broker: sqs-fifo\npublish a amount=100\nduplicate\n", "under broker: sqs-fifo", "при broker: sqs-fifo"},
		{"rabbitmq", "broker: rabbitmq\npublish a amount=100\nduplicate\n", "under broker: rabbitmq", "профилей: sqs"},
		{"nats", "broker: nats\npublish a amount=100\nduplicate\n", "under broker: nats", "при broker: nats"},
		{"kafka", "broker: kafka\npublish a amount=100\nduplicate\n", "under broker: kafka", "при broker: kafka"},
		{"an unpublished operation", "broker: sqs\npublish a amount=100\nduplicate b\n",
			"line 3: duplicate b: no such operation has been published; as in: duplicate [pay-1] (broker: sqs)", "такая операция не публиковалась"},
		{"an option", "broker: sqs\npublish a amount=100\nduplicate crash=before-ack\n",
			`duplicate takes at most an operation id, not "crash=before-ack"`, "принимает разве что id операции"},
		{"two operations", "broker: sqs\npublish a amount=100\npublish b amount=1\nduplicate a b\n",
			`duplicate takes at most an operation id, not "a b"`, "принимает разве что id операции"},
		// A broker verb: not in an API script.
		{"on the API side", "broker: sqs\nrequest a amount=100\nduplicate\n", "duplicate", "duplicate"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse(tt.src)
			e, ok := err.(*Error)
			if !ok {
				t.Fatalf("Parse: %v, want a script error", err)
			}
			if !strings.Contains(e.In("en"), tt.en) || !strings.Contains(e.In("ru"), tt.ru) {
				t.Errorf("error\n%s\n%s\nwant %q and %q in them", e.In("en"), e.In("ru"), tt.en, tt.ru)
			}
		})
	}
}
