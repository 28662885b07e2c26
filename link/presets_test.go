package link_test

import (
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// Every preset packs into a URL-safe permalink shorter than its text,
// and unpacks to it again.
func TestPermalinkRoundTrip(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range presets {
		text := p.Script.String()
		packed := link.Pack(text)
		if strings.ContainsAny(packed, "+/=%&?# ") {
			t.Errorf("%s: permalink %q is not URL-safe", p.Name, packed)
		}
		back, err := link.Unpack(packed)
		if err != nil || back != text {
			t.Errorf("%s: round trip failed: %v", p.Name, err)
		}
		if len(packed) > len(text) {
			t.Errorf("%s: permalink (%d) longer than the text (%d)", p.Name, len(packed), len(text))
		}
	}
}

// A packed script unpacks to at most what the engine reads: the two
// limits are one.
func TestMaxTextIsTheScriptLimit(t *testing.T) {
	if link.MaxText != script.MaxScriptBytes {
		t.Errorf("link.MaxText = %d, script.MaxScriptBytes = %d", link.MaxText, script.MaxScriptBytes)
	}
}
