package script

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/narration"
)

// TestBrokerProfiles: broker: sets the model's visibility timeout,
// delivery limit and deduplication window to the broker's defaults; the
// script's own headers win over the profile in any order; the canonical
// form writes the profile and only what differs from it, and reads back
// the same.
func TestBrokerProfiles(t *testing.T) {
	tests := []struct {
		name, header string
		vt, dedup    time.Duration
		max          int
		canonical    string // the header lines String writes
	}{
		{"no header: the lab's model", "", 0, 0, DefaultMaxDeliveries, ""},
		{"lab, named", "broker: lab", 0, 0, DefaultMaxDeliveries, "broker: lab\n"},
		{"sqs", "broker: sqs", 30 * time.Second, 0, Unlimited, "broker: sqs\n"},
		{"sqs-fifo", "broker: sqs-fifo", 30 * time.Second, 5 * time.Minute, Unlimited, "broker: sqs-fifo\n"},
		{"rabbitmq", "broker: rabbitmq", 0, 0, 20, "broker: rabbitmq\n"},
		{"nats", "broker: nats", 30 * time.Second, 2 * time.Minute, Unlimited, "broker: nats\n"},
		{"kafka", "broker: kafka", 45 * time.Second, 0, Unlimited, "broker: kafka\n"},
		// The script's own header wins, whether it comes before or
		// after broker:.
		{"an override after", "broker: sqs\nvisibility-timeout: 2m", 2 * time.Minute, 0, Unlimited, "broker: sqs\nvisibility-timeout: 2m\n"},
		{"an override before", "max-deliveries: 3\nbroker: nats", 30 * time.Second, 2 * time.Minute, 3, "broker: nats\nmax-deliveries: 3\n"},
		// Turning off what the profile turns on is written as off, so
		// the canonical form reads back the same.
		{"off over a profile", "broker: nats\ndedup-window: off\nvisibility-timeout: off", 0, 0, Unlimited, "broker: nats\ndedup-window: off\nvisibility-timeout: off\n"},
		// Setting the profile's own value is not an override: it is not
		// written.
		{"the profile's own value", "broker: rabbitmq\nmax-deliveries: 20", 0, 0, 20, "broker: rabbitmq\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.header + "\npublish pay-1 amount=100\ndeliver")
			if err != nil {
				t.Fatal(err)
			}
			if s.VisibilityTimeout != tt.vt || s.DedupWindow != tt.dedup || s.MaxDeliveries != tt.max {
				t.Errorf("visibility %s, dedup %s, max %d; want %s, %s, %d", s.VisibilityTimeout, s.DedupWindow, s.MaxDeliveries, tt.vt, tt.dedup, tt.max)
			}
			text := s.String()
			if head, _, _ := strings.Cut(text, "publish"); head != tt.canonical {
				t.Errorf("canonical header %q, want %q", head, tt.canonical)
			}
			again, err := Parse(text)
			if err != nil || again.String() != text || again.VisibilityTimeout != s.VisibilityTimeout || again.DedupWindow != s.DedupWindow || again.MaxDeliveries != s.MaxDeliveries {
				t.Errorf("the canonical form does not read back the same: %v\n%s", err, text)
			}
		})
	}
}

func TestBrokerProfileErrors(t *testing.T) {
	for _, header := range []string{"broker: activemq", "broker:", "broker: SQS"} {
		_, err := Parse(header + "\npublish pay-1 amount=100")
		if err == nil || !strings.Contains(err.Error(), "valid profiles: lab, sqs, sqs-fifo, rabbitmq, nats, kafka") {
			t.Errorf("%q: %v, want an error naming the valid profiles", header, err)
		}
	}
	// After a step, as every header.
	if _, err := Parse("publish pay-1 amount=100\nbroker: sqs"); err == nil || !strings.Contains(err.Error(), "before the first step") {
		t.Errorf("broker: after a step: %v", err)
	}
}

// TestBrokerProfilesCiteTheirGaps: every profile says what the model
// does not follow of its broker, in both languages.
func TestBrokerProfilesCiteTheirGaps(t *testing.T) {
	for _, p := range BrokerProfiles() {
		if !slices.Contains(narration.Keys(), p.Gaps.Key) || p.Gaps.In("en") == "" || p.Gaps.In("ru") == p.Gaps.In("en") || p.Title == "" {
			t.Errorf("%s: a title and its gaps in both languages", p.Name)
		}
	}
}

// TestPastLimit: each profile says what its broker does past the
// delivery limit, and past-limit: overrides it in any order; the
// canonical form writes it only where it differs from the profile.
func TestPastLimit(t *testing.T) {
	for _, tt := range []struct {
		name, header string
		rule         string // PastLimitRule
		canonical    string
	}{
		{"no header: the lab's", "", PastLimitDeadLetter, ""},
		{"sqs: the redrive policy's DLQ", "broker: sqs", PastLimitDeadLetter, "broker: sqs\n"},
		{"sqs-fifo", "broker: sqs-fifo", PastLimitDeadLetter, "broker: sqs-fifo\n"},
		// The lab's real RabbitMQ queue has a dead-letter exchange.
		{"rabbitmq", "broker: rabbitmq", PastLimitDeadLetter, "broker: rabbitmq\n"},
		{"nats: kept in the stream", "broker: nats", PastLimitKeep, "broker: nats\n"},
		{"kafka: kept in the partition", "broker: kafka", PastLimitKeep, "broker: kafka\n"},
		{"a quorum queue without a dead-letter exchange", "broker: rabbitmq\npast-limit: drop", PastLimitDrop, "broker: rabbitmq\npast-limit: drop\n"},
		{"before broker:", "past-limit: dead-letter\nbroker: nats", PastLimitDeadLetter, "broker: nats\npast-limit: dead-letter\n"},
		// The profile's own choice is no override: not written.
		{"the profile's own", "broker: nats\npast-limit: keep", PastLimitKeep, "broker: nats\n"},
		{"the lab's own", "past-limit: dead-letter", PastLimitDeadLetter, ""},
		{"the lab's model, dropping", "past-limit: drop", PastLimitDrop, "past-limit: drop\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Parse(tt.header + "\npublish pay-1 amount=100\ndeliver")
			if err != nil {
				t.Fatal(err)
			}
			if got := s.PastLimitRule(); got != tt.rule {
				t.Errorf("past the limit: %s, want %s", got, tt.rule)
			}
			text := s.String()
			if head, _, _ := strings.Cut(text, "publish"); head != tt.canonical {
				t.Errorf("canonical header %q, want %q", head, tt.canonical)
			}
			if again, err := Parse(text); err != nil || again.String() != text || again.PastLimitRule() != tt.rule {
				t.Errorf("the canonical form does not read back the same: %v\n%s", err, text)
			}
		})
	}
	for _, bad := range []string{"past-limit: discard", "past-limit:", "past-limit: Drop"} {
		_, err := Parse(bad + "\npublish pay-1 amount=100")
		e, ok := err.(*Error)
		if !ok || !strings.Contains(e.In("en"), "valid: dead-letter, drop, keep") || !strings.Contains(e.In("ru"), "есть: dead-letter, drop, keep") {
			t.Errorf("%q: %v, want an error naming the choices in both languages", bad, err)
		}
	}
}
