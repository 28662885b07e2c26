package lessons_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/lessons"
	"github.com/idempotency-lab/lab/sim"
)

// The webhooks lesson shows VerifyStripeSignature in a go fence. The
// function below is that fence, byte for byte (TestWebhooksLessonShowsTheTestedCheck
// compares them), so what the lesson shows is what this file runs.

// fence:begin
// VerifyStripeSignature checks a Stripe-Signature header
// ("t=TIMESTAMP,v1=HEX[,v1=HEX…]") against the raw body: one v1 must be
// the HMAC-SHA256, keyed with the endpoint's secret, of the timestamp, a
// dot and the body; and the timestamp must be within tolerance of now.
func VerifyStripeSignature(header string, body []byte, secret string, now time.Time, tolerance time.Duration) error {
	var ts string
	var sigs []string
	for _, part := range strings.Split(header, ",") {
		k, v, _ := strings.Cut(strings.TrimSpace(part), "=")
		switch k {
		case "t":
			ts = v
		case "v1":
			sigs = append(sigs, v)
		}
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || len(sigs) == 0 {
		return errors.New("signature header: want t=TIMESTAMP and at least one v1=SIGNATURE")
	}
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write([]byte(ts + "."))
	mac.Write(body)
	want := mac.Sum(nil)
	matched := false
	for _, s := range sigs {
		got, err := hex.DecodeString(s)
		matched = matched || (err == nil && hmac.Equal(got, want))
	}
	if !matched {
		return errors.New("no v1 signature matches the body")
	}
	if d := now.Sub(time.Unix(sec, 0)).Abs(); d > tolerance {
		return fmt.Errorf("timestamp %s is %s from now, beyond the %s tolerance: a replayed delivery?", ts, d, tolerance)
	}
	return nil
}

// fence:end

// goFences returns the text of every go fence in a lesson file.
func goFences(t *testing.T, name string) []string {
	t.Helper()
	return fences(t, name, "go")
}

// fences returns the content of every fence of a lesson file whose info
// string is info ("go", "text"), in order.
func fences(t *testing.T, name, info string) []string {
	t.Helper()
	b, err := fs.ReadFile(lessons.Embedded(), name)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	parts := strings.Split(string(b), "```"+info+"\n")
	for _, p := range parts[1:] {
		end := strings.Index(p, "```")
		if end < 0 {
			t.Fatalf("%s: a %s fence is not closed", name, info)
		}
		out = append(out, p[:end])
	}
	return out
}

// textBlock returns the one text fence of a lesson file, trimmed.
func textBlock(t *testing.T, name string) string {
	t.Helper()
	blocks := fences(t, name, "text")
	if len(blocks) != 1 {
		t.Fatalf("%s: %d text blocks, want 1", name, len(blocks))
	}
	return strings.TrimSpace(blocks[0])
}

// TestWebhooksLessonShowsTheTestedCheck: the lesson's go fence, in both
// languages, is the function this file tests.
func TestWebhooksLessonShowsTheTestedCheck(t *testing.T) {
	src, err := os.ReadFile("webhooks_lesson_test.go")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, _ := strings.Cut(string(src), "// fence:begin\n")
	want, _, found := strings.Cut(rest, "\n// fence:end")
	if !found {
		t.Fatal("webhooks_lesson_test.go: no fence:begin … fence:end")
	}
	for _, name := range []string{"content/14-webhooks.en.md", "content/14-webhooks.ru.md"} {
		fences := goFences(t, name)
		if len(fences) != 1 {
			t.Fatalf("%s: %d go fences, want 1", name, len(fences))
		}
		if fences[0] != want {
			t.Errorf("%s shows a check that differs from the one tested here:\n%s\nwant:\n%s", name, fences[0], want)
		}
	}
}

// TestVerifyStripeSignature runs the lesson's check on each case the
// lesson names: a genuine delivery, a tampered body, another secret, a
// replay beyond the window, a clock that runs behind, a rolled-over
// secret, and headers that are not the provider's shape.
func TestVerifyStripeSignature(t *testing.T) {
	const secret = "whsec_test"
	body := []byte(`{"id":"evt_1","type":"payment_intent.succeeded","data":{"object":{"id":"pi_1"}}}`)
	sent := time.Unix(1_700_000_000, 0)
	sign := func(secret string, ts int64, body []byte) string {
		mac := hmac.New(sha256.New, []byte(secret))
		fmt.Fprintf(mac, "%d.", ts)
		mac.Write(body)
		return hex.EncodeToString(mac.Sum(nil))
	}
	good := fmt.Sprintf("t=%d,v1=%s", sent.Unix(), sign(secret, sent.Unix(), body))
	for _, c := range []struct {
		name    string
		header  string
		body    []byte
		now     time.Time
		wantErr string // "" accepts
	}{
		{"genuine, at once", good, body, sent, ""},
		{"genuine, 4m59s later", good, body, sent.Add(5*time.Minute - time.Second), ""},
		// Exactly at the window's edge is still inside it.
		{"genuine, 5m later", good, body, sent.Add(5 * time.Minute), ""},
		{"replayed 5m1s later", good, body, sent.Add(5*time.Minute + time.Second), "beyond the 5m0s tolerance"},
		// A receiver whose clock is behind sees a timestamp from the future.
		{"receiver's clock 10m behind", good, body, sent.Add(-10 * time.Minute), "beyond the 5m0s tolerance"},
		{"tampered body", good, []byte(strings.Replace(string(body), "pi_1", "pi_2", 1)), sent, "no v1 signature matches"},
		{"another secret", fmt.Sprintf("t=%d,v1=%s", sent.Unix(), sign("whsec_other", sent.Unix(), body)), body, sent, "no v1 signature matches"},
		// A timestamp changed to look fresh breaks the signature.
		{"timestamp moved", fmt.Sprintf("t=%d,v1=%s", sent.Unix()+600, sign(secret, sent.Unix(), body)), body, sent.Add(10 * time.Minute), "no v1 signature matches"},
		// During a secret roll-over the header has a v1 per secret.
		{"two v1, the second matches", fmt.Sprintf("t=%d,v1=%s,v1=%s", sent.Unix(), sign("whsec_old", sent.Unix(), body), sign(secret, sent.Unix(), body)), body, sent, ""},
		{"spaces after commas", fmt.Sprintf("t=%d, v1=%s", sent.Unix(), sign(secret, sent.Unix(), body)), body, sent, ""},
		{"not hex", fmt.Sprintf("t=%d,v1=zz", sent.Unix()), body, sent, "no v1 signature matches"},
		{"no timestamp", "v1=" + sign(secret, sent.Unix(), body), body, sent, "want t=TIMESTAMP"},
		{"no signature", fmt.Sprintf("t=%d", sent.Unix()), body, sent, "want t=TIMESTAMP"},
		{"only a v0", fmt.Sprintf("t=%d,v0=%s", sent.Unix(), sign(secret, sent.Unix(), body)), body, sent, "want t=TIMESTAMP"},
		{"empty header", "", body, sent, "want t=TIMESTAMP"},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := VerifyStripeSignature(c.header, c.body, secret, c.now, 5*time.Minute)
			switch {
			case c.wantErr == "" && err != nil:
				t.Errorf("refused: %v", err)
			case c.wantErr != "" && err == nil:
				t.Errorf("accepted, want an error with %q", c.wantErr)
			case c.wantErr != "" && !strings.Contains(err.Error(), c.wantErr):
				t.Errorf("error %q, want one with %q", err, c.wantErr)
			}
		})
	}
}

// TestDurableLessonStoryIsThePreset: the durable-execution lesson tells
// charged-not-marked's steps in a text block, in both languages, and
// claims its twin activity-retry-dedup is the same story with one more
// step, "gateway dedup on", right after the publish.
func TestDurableLessonStoryIsThePreset(t *testing.T) {
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	steps := func(name string) []string {
		p, err := sim.FindPreset(presets, name)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, s := range p.Script.Steps {
			out = append(out, s.String())
		}
		return out
	}
	story := steps("charged-not-marked")
	for _, name := range []string{"content/15-durable.en.md", "content/15-durable.ru.md"} {
		shown := strings.Split(textBlock(t, name), "\n")
		if !slices.Equal(shown, story) {
			t.Errorf("%s shows\n%s\ncharged-not-marked is\n%s", name, strings.Join(shown, "\n"), strings.Join(story, "\n"))
		}
	}
	twin := slices.Insert(slices.Clone(story), 1, "gateway dedup on")
	if got := steps("activity-retry-dedup"); !slices.Equal(got, twin) {
		t.Errorf("activity-retry-dedup is\n%s\nwant charged-not-marked with gateway dedup on after the publish:\n%s", strings.Join(got, "\n"), strings.Join(twin, "\n"))
	}
}
