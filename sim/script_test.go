package sim_test

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

const day = 24 * time.Hour

// parseOK parses src and fails the test if it is not a valid script.
func parseOK(t *testing.T, src string) *script.Script {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatalf("Parse(%q): unexpected error: %v", clip(src), err)
	}
	return s
}

// parseErr parses src, fails the test unless it fails with a *script.Error, and
// returns that error.
func parseErr(t *testing.T, src string) *script.Error {
	t.Helper()
	s, err := script.Parse(src)
	if err == nil {
		t.Fatalf("Parse(%q) succeeded (%d steps), want an error", clip(src), len(s.Steps))
	}
	if s != nil {
		t.Errorf("Parse(%q) returned a script together with error %v", clip(src), err)
	}
	var se *script.Error
	if !errors.As(err, &se) {
		t.Fatalf("Parse(%q) error %v is a %T, want *script.Error", clip(src), err, err)
	}
	// Every message exists in Russian too: the web shows it to learners.
	if !strings.ContainsFunc(se.Message("ru"), func(r rune) bool { return unicode.Is(unicode.Cyrillic, r) }) {
		t.Errorf("Parse(%q): Russian message %q has no Russian in it", clip(src), se.Message("ru"))
	}
	if got := se.In("ru"); se.Line > 0 && !strings.HasPrefix(got, fmt.Sprintf("строка %d: ", se.Line)) {
		t.Errorf("In(ru) = %q: want it to start with the line number", got)
	}
	return se
}

// clip shortens long sources in failure messages.
func clip(s string) string {
	if len(s) > 200 {
		return s[:200] + fmt.Sprintf("... (%d bytes)", len(s))
	}
	return s
}

// withoutLines returns a deep copy of s with every step's Line zeroed, so a
// script can be compared with its canonical re-rendering, in which comments
// and blank lines are gone and the steps sit on other lines.
func withoutLines(s *script.Script) *script.Script {
	c := *s
	c.Steps = append([]script.Step(nil), s.Steps...)
	for i := range c.Steps {
		c.Steps[i].Line = 0
	}
	return &c
}

// defaultHeaders is what a script without header lines has.
func defaultHeaders() script.Script {
	return script.Script{
		MaxDeliveries: script.DefaultMaxDeliveries,
		ProcessingTTL: script.DefaultProcessingTTL,
		DoneTTL:       script.DefaultDoneTTL,
		KeyTTL:        script.DefaultKeyTTL,
	}
}

func TestVerbsListsEveryVerbOnce(t *testing.T) {
	want := []string{script.VerbPublish, script.VerbRetry, script.VerbChangePayload, script.VerbDeliver, script.VerbRedeliver,
		script.VerbDeliverConcurrent, script.VerbDLQReplay, script.VerbAdvance, script.VerbGateway, script.VerbShip, script.VerbDrain,
		script.VerbRequest, script.VerbRequestConcurrent, script.VerbComplete, script.VerbProduce, script.VerbRelay, script.VerbDeliverBatch, script.VerbDuplicate}
	if got := script.Verbs(); !reflect.DeepEqual(got, want) {
		t.Errorf("Verbs() = %v, want %v", got, want)
	}
}

func TestParseSteps(t *testing.T) {
	pub := func(op string, amount int64) script.Step {
		return script.Step{Verb: script.VerbPublish, Op: op, Tenant: script.DefaultTenant, Account: script.DefaultAccount,
			Amount: amount, KeyMode: script.KeyOp}
	}
	long := strings.Repeat("k", script.MaxKeyBytes)
	tests := []struct {
		name string
		prev string // earlier lines, e.g. the publish a retry needs
		line string // the step under test, parsed as the last line
		want script.Step
	}{
		{name: "publish with only amount takes default tenant, account and key mode op",
			line: "publish pay-1 amount=100", want: pub("pay-1", 100)},
		{name: "publish with every option",
			line: "publish pay-1 amount=100 tenant=globex account=bob key=v7",
			want: script.Step{Verb: "publish", Op: "pay-1", Tenant: "globex", Account: "bob", Amount: 100, KeyMode: script.KeyV7}},
		{name: "publish options in any order",
			line: "publish pay-1 key=fresh account=bob tenant=globex amount=7",
			want: script.Step{Verb: "publish", Op: "pay-1", Tenant: "globex", Account: "bob", Amount: 7, KeyMode: script.KeyFresh}},
		{name: "publish key=op explicitly", line: "publish pay-1 amount=1 key=op", want: pub("pay-1", 1)},
		{name: "publish key=v7", line: "publish pay-1 amount=1 key=v7",
			want: func() script.Step { s := pub("pay-1", 1); s.KeyMode = script.KeyV7; return s }()},
		{name: "publish key=fresh", line: "publish pay-1 amount=1 key=fresh",
			want: func() script.Step { s := pub("pay-1", 1); s.KeyMode = script.KeyFresh; return s }()},
		{name: "publish tenant only", line: "publish pay-1 amount=1 tenant=globex",
			want: func() script.Step { s := pub("pay-1", 1); s.Tenant = "globex"; return s }()},
		{name: "publish account only", line: "publish pay-1 amount=1 account=bob",
			want: func() script.Step { s := pub("pay-1", 1); s.Account = "bob"; return s }()},
		{name: "publish the maximum amount", line: "publish pay-1 amount=" + strconv.Itoa(script.MaxAmount),
			want: pub("pay-1", script.MaxAmount)},
		{name: "publish amount 1 is the minimum", line: "publish pay-1 amount=1", want: pub("pay-1", 1)},
		{name: "operation id may be a UUID", line: "publish 0190a5f6-8d2e-7c3b-9f1e-2a4b6c8d0e1f amount=5",
			want: pub("0190a5f6-8d2e-7c3b-9f1e-2a4b6c8d0e1f", 5)},
		{name: "operation id may be composite with punctuation", line: "publish acme:order/42#1 amount=5",
			want: pub("acme:order/42#1", 5)},
		{name: "operation id may be non-ASCII", line: "publish платёж-1 amount=5", want: pub("платёж-1", 5)},
		{name: "operation id of exactly MaxKeyBytes", line: "publish " + long + " amount=5", want: pub(long, 5)},
		{name: "extra spaces and tabs between arguments",
			line: "   publish   pay-1\tamount=100 \t key=v7   ",
			want: func() script.Step { s := pub("pay-1", 100); s.KeyMode = script.KeyV7; return s }()},
		{name: "same operation id under another tenant is another intent",
			prev: "publish pay-1 amount=1", line: "publish pay-1 amount=2 tenant=globex",
			want: func() script.Step { s := pub("pay-1", 2); s.Tenant = "globex"; return s }()},

		{name: "retry takes the default tenant", prev: "publish pay-1 amount=1", line: "retry pay-1",
			want: script.Step{Verb: "retry", Op: "pay-1", Tenant: "acme"}},
		{name: "retry with tenant", prev: "publish pay-1 amount=1 tenant=globex", line: "retry pay-1 tenant=globex",
			want: script.Step{Verb: "retry", Op: "pay-1", Tenant: "globex"}},
		{name: "change-payload with amount", prev: "publish pay-1 amount=100", line: "change-payload pay-1 amount=150",
			want: script.Step{Verb: "change-payload", Op: "pay-1", Tenant: "acme", Amount: 150}},
		{name: "change-payload with amount and tenant", prev: "publish pay-1 amount=100 tenant=globex",
			line: "change-payload pay-1 tenant=globex amount=150",
			want: script.Step{Verb: "change-payload", Op: "pay-1", Tenant: "globex", Amount: 150}},
		{name: "change-payload to the same amount is allowed", prev: "publish pay-1 amount=100",
			line: "change-payload pay-1 amount=100",
			want: script.Step{Verb: "change-payload", Op: "pay-1", Tenant: "acme", Amount: 100}},

		{name: "deliver without crash", line: "deliver", want: script.Step{Verb: "deliver"}},
		{name: "deliver crash=before-effect", line: "deliver crash=before-effect",
			want: script.Step{Verb: "deliver", Crash: script.CrashBeforeEffect}},
		{name: "deliver crash=after-effect", line: "deliver crash=after-effect",
			want: script.Step{Verb: "deliver", Crash: script.CrashAfterEffect}},
		{name: "deliver crash=before-ack", line: "deliver crash=before-ack",
			want: script.Step{Verb: "deliver", Crash: script.CrashBeforeAck}},
		{name: "deliver crash=call:N", line: "deliver crash=call:3",
			want: script.Step{Verb: "deliver", Crash: "call:3"}},
		{name: "deliver crash=after-call:N", line: "deliver crash=after-call:1",
			want: script.Step{Verb: "deliver", Crash: "after-call:1"}},
		{name: "deliver crash at the highest call", line: "deliver crash=call:100",
			want: script.Step{Verb: "deliver", Crash: "call:100"}},
		{name: "redeliver", line: "redeliver", want: script.Step{Verb: "redeliver"}},
		{name: "deliver-concurrent", line: "deliver-concurrent", want: script.Step{Verb: "deliver-concurrent"}},
		{name: "deliver-concurrent same", line: "deliver-concurrent same", want: script.Step{Verb: "deliver-concurrent", Same: true}},
		{name: "deliver-concurrent switch", line: "deliver-concurrent switch=2,5",
			want: script.Step{Verb: "deliver-concurrent", Switch: []int{2, 5}}},
		{name: "deliver-concurrent switch for worker A only", line: "deliver-concurrent switch=1",
			want: script.Step{Verb: "deliver-concurrent", Switch: []int{1}}},
		{name: "deliver-concurrent same switch", line: "deliver-concurrent same switch=3,1",
			want: script.Step{Verb: "deliver-concurrent", Same: true, Switch: []int{3, 1}}},
		{name: "dlq-replay", line: "dlq-replay", want: script.Step{Verb: "dlq-replay"}},
		{name: "drain", line: "drain", want: script.Step{Verb: "drain"}},

		{name: "advance seconds", line: "advance 90s", want: script.Step{Verb: "advance", Advance: 90 * time.Second}},
		{name: "advance minutes", line: "advance 15m", want: script.Step{Verb: "advance", Advance: 15 * time.Minute}},
		{name: "advance hours", line: "advance 25h", want: script.Step{Verb: "advance", Advance: 25 * time.Hour}},
		{name: "advance days", line: "advance 3d", want: script.Step{Verb: "advance", Advance: 3 * day}},
		{name: "advance hours and minutes", line: "advance 1h30m", want: script.Step{Verb: "advance", Advance: 90 * time.Minute}},
		{name: "advance minimum 1s", line: "advance 1s", want: script.Step{Verb: "advance", Advance: time.Second}},
		{name: "advance maximum 3650d", line: "advance 3650d", want: script.Step{Verb: "advance", Advance: 3650 * day}},
		{name: "advance maximum in hours", line: "advance 87600h", want: script.Step{Verb: "advance", Advance: 3650 * day}},
		{name: "advance fractional seconds above 1s", line: "advance 1500ms",
			want: script.Step{Verb: "advance", Advance: 1500 * time.Millisecond}},

		{name: "gateway up", line: "gateway up", want: script.Step{Verb: "gateway", Gateway: script.GatewayUp, Up: true}},
		{name: "gateway down", line: "gateway down", want: script.Step{Verb: "gateway", Gateway: script.GatewayDown}},
		{name: "gateway timeout", line: "gateway timeout", want: script.Step{Verb: "gateway", Gateway: script.GatewayTimeout}},
		{name: "gateway dedup on", line: "gateway dedup on", want: script.Step{Verb: "gateway", Gateway: script.GatewayDedupOn}},
		{name: "gateway dedup off", line: "gateway dedup off", want: script.Step{Verb: "gateway", Gateway: script.GatewayDedupOff}},
		{name: "gateway dedup with extra spaces", line: "gateway   dedup\ton", want: script.Step{Verb: "gateway", Gateway: script.GatewayDedupOn}},
		{name: "gateway stall", line: "gateway stall 90m",
			want: script.Step{Verb: "gateway", Gateway: script.GatewayStall, Stall: 90 * time.Minute}},
		{name: "gateway stall in days", line: "gateway stall 2d",
			want: script.Step{Verb: "gateway", Gateway: script.GatewayStall, Stall: 2 * day}},

		{name: "ship takes the default tenant", prev: "publish pay-1 amount=1", line: "ship pay-1",
			want: script.Step{Verb: "ship", Op: "pay-1", Tenant: "acme"}},
		{name: "ship with tenant", prev: "publish pay-1 amount=1 tenant=globex", line: "ship pay-1 tenant=globex",
			want: script.Step{Verb: "ship", Op: "pay-1", Tenant: "globex"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.line
			if tc.prev != "" {
				src = tc.prev + "\n" + tc.line
			}
			s := parseOK(t, src)
			wantSteps := strings.Count(src, "\n") + 1
			if len(s.Steps) != wantSteps {
				t.Fatalf("got %d steps, want %d", len(s.Steps), wantSteps)
			}
			got := s.Steps[len(s.Steps)-1]
			want := tc.want
			want.Line = wantSteps
			if !reflect.DeepEqual(got, want) {
				t.Errorf("step =\n %+v\nwant\n %+v", got, want)
			}
		})
	}
}

func TestParseHeaders(t *testing.T) {
	tests := []struct {
		name string
		src  string
		edit func(s *script.Script) // turns the defaults into what is expected
	}{
		{name: "no headers gives the defaults", src: "deliver", edit: func(*script.Script) {}},
		{name: "empty script gives the defaults", src: "", edit: func(*script.Script) {}},
		{name: "title", src: "title: Crash before the ack", edit: func(s *script.Script) { s.Title = "Crash before the ack" }},
		{name: "title-ru", src: "title-ru: Падение перед ack", edit: func(s *script.Script) { s.TitleRU = "Падение перед ack" }},
		{name: "summary", src: "summary: The worker dies: a duplicate.",
			edit: func(s *script.Script) { s.Summary = "The worker dies: a duplicate." }},
		{name: "summary-ru", src: "summary-ru: Воркер умер.", edit: func(s *script.Script) { s.SummaryRU = "Воркер умер." }},
		{name: "header value is trimmed", src: "title:    spaced out  \t", edit: func(s *script.Script) { s.Title = "spaced out" }},
		{name: "empty header value", src: "title:", edit: func(*script.Script) {}},
		{name: "max-deliveries", src: "max-deliveries: 3", edit: func(s *script.Script) { s.MaxDeliveries = 3 }},
		{name: "max-deliveries minimum 1", src: "max-deliveries: 1", edit: func(s *script.Script) { s.MaxDeliveries = 1 }},
		{name: "max-deliveries maximum", src: "max-deliveries: 100", edit: func(s *script.Script) { s.MaxDeliveries = script.MaxDeliveries }},
		{name: "processing-ttl in seconds", src: "processing-ttl: 30s", edit: func(s *script.Script) { s.ProcessingTTL = 30 * time.Second }},
		{name: "processing-ttl 1h30m", src: "processing-ttl: 1h30m", edit: func(s *script.Script) { s.ProcessingTTL = 90 * time.Minute }},
		{name: "done-ttl in days", src: "done-ttl: 2d", edit: func(s *script.Script) { s.DoneTTL = 2 * day }},
		{name: "done-ttl in minutes", src: "done-ttl: 15m", edit: func(s *script.Script) { s.DoneTTL = 15 * time.Minute }},
		{name: "inbox-retention in days", src: "inbox-retention: 7d", edit: func(s *script.Script) { s.InboxRetention = 7 * day }},
		{name: "inbox-retention in hours", src: "inbox-retention: 12h", edit: func(s *script.Script) { s.InboxRetention = 12 * time.Hour }},
		{name: "inbox-retention off", src: "inbox-retention: off", edit: func(*script.Script) {}},
		{name: "inbox-retention off after a duration", src: "inbox-retention: 7d\ninbox-retention: off", edit: func(*script.Script) {}},
		{name: "a repeated header keeps the last value", src: "title: one\ntitle: two", edit: func(s *script.Script) { s.Title = "two" }},
		{name: "every header at once",
			src: "title: T\ntitle-ru: Т\nsummary: S\nsummary-ru: С\nmax-deliveries: 2\nprocessing-ttl: 10m\ndone-ttl: 1d\ninbox-retention: 36h",
			edit: func(s *script.Script) {
				s.Title, s.TitleRU, s.Summary, s.SummaryRU = "T", "Т", "S", "С"
				s.MaxDeliveries, s.ProcessingTTL, s.DoneTTL, s.InboxRetention = 2, 10*time.Minute, day, 36*time.Hour
			}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := parseOK(t, tc.src)
			got.Steps = nil
			want := defaultHeaders()
			tc.edit(&want)
			if !reflect.DeepEqual(*got, want) {
				t.Errorf("headers =\n %+v\nwant\n %+v", *got, want)
			}
		})
	}
}

func TestParseNarrationCommentsAndBlankLines(t *testing.T) {
	src := strings.Join([]string{
		"# A comment before the headers",     // 1
		"title: Narrated",                    // 2
		"",                                   // 3
		"#en: The producer publishes pay-1.", // 4
		"#ru: Продюсер публикует pay-1.",                   // 5
		"publish pay-1 amount=100",                         // 6
		"deliver crash=before-ack",                         // 7: no narration of its own
		"   ",                                              // 8
		"#en:   Only English, trimmed.   ",                 // 9
		"# a plain comment between narration and its step", // 10
		"",                               // 11
		"redeliver",                      // 12
		"#ru: Только по-русски.",         // 13
		"deliver",                        // 14
		"#en: first",                     // 15
		"#en: second wins",               // 16
		"# en: not narration, a comment", // 17
		"#EN: not narration either",      // 18
		"drain",                          // 19
		"#en:",                           // 20: empty narration is none
		"dlq-replay",                     // 21
		"# trailing comment",             // 22
		"",
	}, "\n")
	s := parseOK(t, src)
	want := []struct {
		line   int
		verb   string
		en, ru string
	}{
		{6, "publish", "The producer publishes pay-1.", "Продюсер публикует pay-1."},
		{7, "deliver", "", ""},
		{12, "redeliver", "Only English, trimmed.", ""},
		{14, "deliver", "", "Только по-русски."},
		{19, "drain", "second wins", ""},
		{21, "dlq-replay", "", ""},
	}
	if len(s.Steps) != len(want) {
		t.Fatalf("got %d steps, want %d: %+v", len(s.Steps), len(want), s.Steps)
	}
	for i, w := range want {
		st := s.Steps[i]
		if st.Line != w.line || st.Verb != w.verb || st.NarrationEN != w.en || st.NarrationRU != w.ru {
			t.Errorf("step %d = line %d %s en=%q ru=%q, want line %d %s en=%q ru=%q",
				i+1, st.Line, st.Verb, st.NarrationEN, st.NarrationRU, w.line, w.verb, w.en, w.ru)
		}
	}
	if s.Title != "Narrated" {
		t.Errorf("Title = %q, want %q", s.Title, "Narrated")
	}
}

func TestParseLineNumbers(t *testing.T) {
	t.Run("LF", func(t *testing.T) {
		s := parseOK(t, "\n\n# c\npublish pay-1 amount=1\n\n\ndeliver\n")
		if s.Steps[0].Line != 4 || s.Steps[1].Line != 7 {
			t.Errorf("lines = %d, %d; want 4, 7", s.Steps[0].Line, s.Steps[1].Line)
		}
	})
	t.Run("CRLF line endings are accepted", func(t *testing.T) {
		s := parseOK(t, "title: Windows\r\n#en: narrated\r\npublish pay-1 amount=1\r\n\r\ndeliver\r\n")
		if s.Title != "Windows" || s.Steps[0].NarrationEN != "narrated" || s.Steps[0].Line != 3 || s.Steps[1].Line != 5 {
			t.Errorf("got %+v", s)
		}
	})
	t.Run("error line counts blank and comment lines", func(t *testing.T) {
		e := parseErr(t, "# c\n\n#en: x\npublish pay-1 amount=1\n\n\nfrobnicate\n")
		if e.Line != 7 {
			t.Errorf("Line = %d, want 7", e.Line)
		}
	})
}

func TestParseLimitsAccepted(t *testing.T) {
	t.Run("exactly MaxSteps steps", func(t *testing.T) {
		s := parseOK(t, strings.Repeat("drain\n", script.MaxSteps))
		if len(s.Steps) != script.MaxSteps {
			t.Errorf("got %d steps, want %d", len(s.Steps), script.MaxSteps)
		}
	})
	t.Run("exactly MaxScriptBytes bytes", func(t *testing.T) {
		src := "drain\n#"
		src += strings.Repeat("x", script.MaxScriptBytes-len(src))
		if len(src) != script.MaxScriptBytes {
			t.Fatalf("test script is %d bytes", len(src))
		}
		parseOK(t, src)
	})
}

func TestParseErrors(t *testing.T) {
	verbs := strings.Join(script.Verbs(), ", ")
	headers := "title, title-ru, summary, summary-ru, max-deliveries, processing-ttl, done-ttl, inbox-retention"
	const amountMsg = "not a positive whole number of minor units"
	const durMsg = "is not a duration; examples: 90s, 15m, 2h, 1h30m, 3d"
	const rangeMsg = "is out of range: from 1s to 3650d"
	long := strings.Repeat("k", script.MaxKeyBytes+1)
	longCyrillic := strings.Repeat("ж", 128) // 256 bytes
	tooMany := strings.Repeat("drain\n", script.MaxSteps) + "drain\n"
	tooBig := "drain\n#" + strings.Repeat("x", script.MaxScriptBytes)

	tests := []struct {
		name string
		src  string
		line int
		want []string // substrings of the message
	}{
		// Verbs and options.
		{"unknown verb lists the valid verbs", "pubish pay-1 amount=1", 1,
			[]string{`unknown verb "pubish"`, "valid verbs: " + verbs}},
		{"verbs are case-sensitive", "DELIVER", 1, []string{`unknown verb "DELIVER"`, verbs}},
		{"header word without a space is an unknown verb", "title:x", 1, []string{`unknown verb "title:x"`}},
		{"unknown publish option lists the valid options", "publish pay-1 amount=1 acount=bob", 1,
			[]string{`publish: unknown option "acount"`, "valid options: amount, tenant, account, key"}},
		{"unknown retry option lists the valid options", "publish pay-1 amount=1\nretry pay-1 amount=5", 2,
			[]string{`retry: unknown option "amount"`, "valid options: tenant"}},
		{"unknown change-payload option", "publish pay-1 amount=1\nchange-payload pay-1 amount=5 key=v7", 2,
			[]string{`change-payload: unknown option "key"`, "valid options: amount, tenant"}},
		{"unknown ship option", "publish pay-1 amount=1\nship pay-1 carrier=dhl", 2,
			[]string{`ship: unknown option "carrier"`, "valid options: tenant"}},
		{"unknown deliver option", "deliver crsh=before-ack", 1,
			[]string{`deliver: unknown option "crsh"`, "valid options: crash"}},
		// A bare word after deliver is the operation to deliver: one never
		// published is refused, with the usage.
		{"deliver with a bare word", "deliver now", 1,
			[]string{`deliver now: no operation now has been published`, "deliver [pay-1] [crash=before-ack]"}},
		{"deliver an operation, then a bare word", "publish pay-1 amount=1\ndeliver pay-1 now", 2,
			[]string{`deliver: unexpected "now"`, "options are name=value: crash"}},
		{"refund without order", "publish pay-1 amount=1\npublish ref-1 amount=1 kind=refund", 2,
			[]string{"kind=refund needs order=OP"}},
		{"refund of an unknown order", "publish ref-1 amount=1 kind=refund order=pay-9", 1,
			[]string{"order=pay-9: no payment pay-9 of tenant acme has been published"}},
		{"refund of a refund", "publish pay-1 amount=1\npublish ref-1 amount=1 kind=refund order=pay-1\npublish ref-2 amount=1 kind=refund order=ref-1", 3,
			[]string{"order=ref-1: no payment ref-1"}},
		{"order without kind=refund", "publish pay-1 amount=1\npublish pay-2 amount=1 order=pay-1", 2,
			[]string{"order= belongs to kind=refund"}},
		{"unknown kind", "publish pay-1 amount=1 kind=chargeback", 1,
			[]string{"kind=chargeback: unknown message kind; valid kinds: payment, refund"}},
		{"produce without an id", "produce amount=5", 1, []string{"produce needs an operation id first", "produce pay-1 amount=100"}},
		{"produce without amount", "produce pay-1", 1, []string{"produce needs amount=N"}},
		{"produce with an unknown mode", "produce pay-1 amount=5 mode=two-phase", 1,
			[]string{"mode=two-phase: unknown producer mode; valid modes: dual-write", "publish-first", "outbox"}},
		{"produce with an unknown crash point", "produce pay-1 amount=5 crash=before-ack", 1,
			[]string{"crash=before-ack: unknown producer crash point; valid points: after-commit", "after-publish"}},
		{"an outbox producer does not publish", "produce pay-1 amount=5 mode=outbox crash=after-publish", 1,
			[]string{"with mode=outbox the producer publishes nothing", "relay crash=after-publish"}},
		{"produce twice", "produce pay-1 amount=5\nproduce pay-1 amount=5", 2, []string{"already produced; use retry"}},
		{"produce an operation published before", "publish pay-1 amount=5\nproduce pay-1 amount=5", 2, []string{"already produced"}},
		{"produce with an unknown option", "produce pay-1 amount=5 key=v7", 1,
			[]string{`produce: unknown option "key"`, "valid options: amount, tenant, account, mode, crash"}},
		{"relay with an unknown crash point", "relay crash=after-commit", 1,
			[]string{"crash=after-commit: unknown relay crash point", "after-publish"}},
		{"relay with a bare word", "relay now", 1, []string{`relay: unexpected "now"`}},
		{"deliver-batch without a size", "deliver-batch", 1, []string{"deliver-batch needs the batch size first", "deliver-batch 3"}},
		{"deliver-batch of zero", "deliver-batch 0", 1, []string{`"0" is not a batch size`, "from 1 to 50"}},
		{"deliver-batch too large", "deliver-batch 51", 1, []string{`"51" is not a batch size`}},
		{"deliver-batch with a leading zero", "deliver-batch 03", 1, []string{`"03" is not a batch size`}},
		{"deliver-batch with an unknown commit mode", "deliver-batch 3 commit=never", 1,
			[]string{"commit=never: unknown commit mode; valid modes: after", "before"}},
		{"deliver-batch crash past the batch", "deliver-batch 3 crash=after-message:4", 1,
			[]string{"crash=after-message:4: unknown batch crash point", "K from 1 to the batch size 3"}},
		{"deliver-batch with a worker's crash point", "deliver-batch 3 crash=before-ack", 1,
			[]string{"crash=before-ack: unknown batch crash point"}},
		{"deliver-batch with an unknown option", "deliver-batch 3 switch=2", 1,
			[]string{`deliver-batch: unknown option "switch"`, "valid options: commit, crash"}},
		{"producer verbs are the broker side", "request pay-1 amount=5\nproduce pay-2 amount=5", 2,
			[]string{"produce is the broker side"}},
		{"publish with a bare word after the id", "publish pay-1 100", 1,
			[]string{`publish: unexpected "100"`, "amount, tenant, account, key"}},
		{"option given twice", "publish pay-1 amount=1 amount=2", 1, []string{"publish: option amount given twice"}},
		{"crash given twice", "deliver crash=before-ack crash=after-effect", 1, []string{"deliver: option crash given twice"}},
		{"bad key mode lists the valid modes", "publish pay-1 amount=1 key=uuid", 1,
			[]string{"key=uuid: unknown key mode", "valid modes: op, v7, fresh"}},
		{"empty key mode", "publish pay-1 amount=1 key=", 1, []string{"unknown key mode", "op, v7, fresh"}},
		{"bad crash point lists the valid points", "deliver crash=during-effect", 1,
			[]string{"crash=during-effect: unknown crash point", "valid points: before-effect, after-effect, before-ack"}},
		{"empty crash point", "deliver crash=", 1, []string{"unknown crash point", "before-effect, after-effect, before-ack"}},
		// Calls are numbered from 1 and written in one way only, so that
		// a script has one canonical form.
		{"crash before call 0", "deliver crash=call:0", 1, []string{"crash=call:0: unknown crash point", "call:N", "after-call:N", "N from 1 to 100"}},
		{"crash past the highest call", "deliver crash=after-call:101", 1, []string{"crash=after-call:101: unknown crash point"}},
		{"crash call with a leading zero", "deliver crash=call:03", 1, []string{"crash=call:03: unknown crash point"}},
		{"crash call without a number", "deliver crash=call:", 1, []string{"crash=call:: unknown crash point"}},
		{"crash call with a sign", "deliver crash=call:+2", 1, []string{"unknown crash point"}},
		{"switch with three calls", "deliver-concurrent switch=1,2,3", 1, []string{"switch=1,2,3: at most two calls", "switch=2,5"}},
		{"switch at call 0", "deliver-concurrent switch=0", 1, []string{`switch=0: "0" is not a call number`, "from 1 to 100"}},
		{"switch with a word", "deliver-concurrent switch=a,2", 1, []string{`switch=a,2: "a" is not a call number`}},
		{"switch with an empty call", "deliver-concurrent switch=2,", 1, []string{`switch=2,: "" is not a call number`}},
		{"switch given twice", "deliver-concurrent switch=1 switch=2", 1, []string{`deliver-concurrent takes same and switch=A[,B], found "switch=1 switch=2"`}},
		{"same after switch", "deliver-concurrent switch=1 same", 1, []string{`found "switch=1 same"`}},

		// Operation ids and other ids.
		{"publish without operation id", "publish", 1,
			[]string{"publish needs an operation id first", "publish pay-1 amount=100"}},
		{"publish with an option where the id should be", "publish amount=100", 1,
			[]string{"publish needs an operation id first"}},
		{"retry without operation id", "retry", 1, []string{"retry needs an operation id first", "retry pay-1"}},
		{"change-payload without operation id", "change-payload amount=5", 1,
			[]string{"change-payload needs an operation id first"}},
		{"ship without operation id", "ship", 1, []string{"ship needs an operation id first", "ship pay-1"}},
		{"operation id over 255 bytes", "publish " + long + " amount=1", 1,
			[]string{"operation id is 256 bytes; the limit is 255"}},
		{"operation id over 255 bytes in Cyrillic", "publish " + longCyrillic + " amount=1", 1,
			[]string{"operation id is 256 bytes; the limit is 255"}},
		{"tenant over 255 bytes", "publish pay-1 amount=1 tenant=" + long, 1,
			[]string{"tenant is 256 bytes; the limit is 255"}},
		{"account over 255 bytes", "publish pay-1 amount=1 account=" + long, 1,
			[]string{"account is 256 bytes; the limit is 255"}},
		{"empty tenant", "publish pay-1 amount=1 tenant=", 1, []string{"tenant is empty"}},
		{"empty account", "publish pay-1 amount=1 account=", 1, []string{"account is empty"}},
		{"empty tenant on retry", "publish pay-1 amount=1\nretry pay-1 tenant=", 2, []string{"tenant is empty"}},
		{"zero-width space in operation id is not printable", "publish pay\u200b1 amount=1", 1,
			[]string{`operation id "pay\u200b1" has characters that are not printable`}},
		{"soft hyphen in tenant is not printable", "publish pay-1 amount=1 tenant=ac\u00adme", 1,
			[]string{"tenant", "not printable"}},
		{"BOM inside account is not printable", "publish pay-1 amount=1 account=al\ufeffice", 1,
			[]string{"account", "not printable"}},

		// Control characters, anywhere on a line.
		{"NUL in a step", "publish pay\x001 amount=1", 1, []string{"control characters are not allowed"}},
		{"escape sequence in a step", "deliver \x1b[31m", 1, []string{"control characters are not allowed"}},
		{"DEL in a step", "deliver\x7f", 1, []string{"control characters are not allowed"}},
		{"bare CR inside a line", "publish pay-1\ramount=1", 1, []string{"control characters are not allowed"}},
		{"vertical tab inside a line", "deliver\vcrash=before-ack", 1, []string{"control characters are not allowed"}},
		{"NEL inside a line", "publish pay\u00851 amount=1", 1, []string{"control characters are not allowed"}},
		{"control character in a header", "title: a\x01b", 1, []string{"control characters are not allowed"}},
		{"control character in narration", "#en: bad\x07bell\ndeliver", 1, []string{"control characters are not allowed"}},
		{"control character in a comment", "# bad\x00\ndeliver", 1, []string{"control characters are not allowed"}},

		// Amounts.
		{"publish without amount", "publish pay-1", 1,
			[]string{"publish needs amount=N (a positive whole number of minor units)", "publish pay-1 amount=100"}},
		{"publish with other options but no amount", "publish pay-1 tenant=globex key=v7", 1, []string{"publish needs amount=N"}},
		{"change-payload without amount", "publish pay-1 amount=1\nchange-payload pay-1", 2,
			[]string{"change-payload needs amount=N", "change-payload pay-1 amount=150"}},
		{"negative amount", "publish pay-1 amount=-5", 1, []string{"amount=-5: " + amountMsg, "never a fraction"}},
		{"zero amount", "publish pay-1 amount=0", 1, []string{"amount=0: " + amountMsg}},
		{"non-integer amount", "publish pay-1 amount=ten", 1, []string{"amount=ten: " + amountMsg}},
		{"float amount", "publish pay-1 amount=1.5", 1, []string{"amount=1.5: " + amountMsg, "never a fraction"}},
		{"float amount with zero fraction", "publish pay-1 amount=100.00", 1, []string{"amount=100.00: " + amountMsg}},
		{"exponent amount", "publish pay-1 amount=1e3", 1, []string{"amount=1e3: " + amountMsg}},
		{"amount with digit separators", "publish pay-1 amount=1_000", 1, []string{"amount=1_000: " + amountMsg}},
		{"empty amount", "publish pay-1 amount=", 1, []string{"amount=: " + amountMsg}},
		{"amount one over the maximum", "publish pay-1 amount=" + strconv.Itoa(script.MaxAmount+1), 1,
			[]string{amountMsg, "(1 to 1000000000000)"}},
		{"huge amount beyond int64", "publish pay-1 amount=99999999999999999999999", 1, []string{amountMsg}},
		{"zero amount on change-payload", "publish pay-1 amount=1\nchange-payload pay-1 amount=0", 2,
			[]string{"amount=0: " + amountMsg}},
		{"float amount on change-payload", "publish pay-1 amount=1\nchange-payload pay-1 amount=0.5", 2,
			[]string{"amount=0.5: " + amountMsg}},

		// Intents.
		{"retry before publish", "retry pay-1", 1,
			[]string{"retry: operation pay-1 of tenant acme has not been published yet; publish it first"}},
		{"change-payload before publish", "change-payload pay-1 amount=5", 1,
			[]string{"change-payload: operation pay-1 of tenant acme has not been published yet"}},
		{"ship before publish", "ship pay-1", 1, []string{"ship: operation pay-1 of tenant acme has not been published yet"}},
		{"retry under another tenant than the publish", "publish pay-1 amount=1\nretry pay-1 tenant=globex", 2,
			[]string{"operation pay-1 of tenant globex has not been published yet"}},
		{"retry of another operation", "publish pay-1 amount=1\nretry pay-2", 2, []string{"operation pay-2 of tenant acme has not been published"}},
		{"publishing the same intent twice", "publish pay-1 amount=1\ndeliver\npublish pay-1 amount=2", 3,
			[]string{"operation pay-1 of tenant acme is already published", "use retry or change-payload"}},
		{"publishing the same intent twice with the default tenant spelled out",
			"publish pay-1 amount=1\npublish pay-1 amount=1 tenant=acme", 2, []string{"already published"}},
		{"the first error in the script is the one reported", "publish pay-1 amount=0\nretry pay-1", 1, []string{amountMsg}},

		// Verbs without arguments.
		{"redeliver with arguments", "redeliver now", 1, []string{`redeliver takes no arguments, found "now"`}},
		{"redeliver with an option", "redeliver crash=before-ack", 1, []string{`redeliver takes no arguments, found "crash=before-ack"`}},
		{"deliver-concurrent with arguments", "deliver-concurrent 3", 1, []string{`deliver-concurrent takes same and switch=A[,B], found "3"`, "deliver-concurrent [same] [switch=2,5]"}},
		{"deliver-concurrent same twice", "deliver-concurrent same same", 1, []string{`deliver-concurrent takes same and switch=A[,B], found "same same"`}},
		{"deliver-concurrent SAME in capitals", "deliver-concurrent SAME", 1, []string{`found "SAME"`}},
		{"dlq-replay with arguments", "dlq-replay all now", 1, []string{`dlq-replay takes no arguments, found "all now"`}},
		{"drain with arguments", "drain x", 1, []string{`drain takes no arguments, found "x"`}},

		// Durations.
		{"advance without duration", "advance", 1, []string{"advance needs one duration", "advance 25h (units: s, m, h, d)"}},
		{"advance with two durations", "advance 1h 2h", 1, []string{"advance needs one duration"}},
		{"advance with a word", "advance soon", 1, []string{`advance: "soon" ` + durMsg}},
		{"advance without unit", "advance 5", 1, []string{`advance: "5" ` + durMsg}},
		{"advance in weeks", "advance 1w", 1, []string{`advance: "1w" ` + durMsg}},
		{"advance fractional days", "advance 1.5d", 1, []string{`advance: "1.5d" ` + durMsg}},
		{"advance d alone", "advance d", 1, []string{`advance: "d" ` + durMsg}},
		{"advance mixing days and hours", "advance 1d12h", 1, []string{`advance: "1d12h" ` + durMsg}},
		{"advance zero seconds", "advance 0s", 1, []string{`advance: "0s" ` + rangeMsg}},
		{"advance zero days", "advance 0d", 1, []string{`advance: "0d" ` + rangeMsg}},
		{"advance zero", "advance 0", 1, []string{`advance: "0" ` + rangeMsg}},
		{"advance under a second", "advance 500ms", 1, []string{`advance: "500ms" ` + rangeMsg}},
		{"advance negative", "advance -1h", 1, []string{`advance: "-1h" ` + rangeMsg}},
		{"advance negative days", "advance -2d", 1, []string{`advance: "-2d" ` + rangeMsg}},
		{"advance one day too many", "advance 3651d", 1, []string{`advance: "3651d" ` + rangeMsg}},
		{"advance too many hours", "advance 87601h", 1, []string{`advance: "87601h" ` + rangeMsg}},
		// Well-formed durations too large for time.Duration (about 292
		// years) are out of range, not "not a duration".
		{"advance beyond time.Duration in hours", "advance 9999999999h", 1, []string{`advance: "9999999999h" ` + rangeMsg}},
		{"advance 99999999h", "advance 99999999h", 1, []string{`advance: "99999999h" ` + rangeMsg}},
		{"advance beyond time.Duration in composite form", "advance 2562048h1m", 1, []string{rangeMsg}},
		{"advance beyond time.Duration in fractional hours", "advance 9999999.5h", 1, []string{rangeMsg}},
		{"advance beyond time.Duration, negative", "advance -99999999h", 1, []string{rangeMsg}},
		{"advance beyond int in days", "advance 99999999999999999999d", 1, []string{`advance: "99999999999999999999d" ` + rangeMsg}},
		{"processing-ttl beyond time.Duration", "processing-ttl: 99999999h", 1, []string{`processing-ttl: "99999999h" ` + rangeMsg}},
		{"a huge number with a wrong unit is still no duration", "advance 99999999999999999999w", 1, []string{durMsg}},
		{"a huge number without a unit is still no duration", "advance 99999999999999999999", 1, []string{durMsg}},
		{"advance days whose nanoseconds overflow to negative", "advance 106752d", 1, []string{rangeMsg}},

		// Gateway.
		{"gateway with a wrong word", "gateway sideways", 1,
			[]string{"gateway needs up or down (or timeout, dedup on, dedup off, stall DURATION)", `found "sideways"`, "gateway down"}},
		{"gateway without a word", "gateway", 1, []string{"gateway needs up or down", `found ""`}},
		{"gateway with two words", "gateway up down", 1, []string{"gateway needs up or down", `found "up down"`}},
		{"gateway in capitals", "gateway UP", 1, []string{"gateway needs up or down"}},
		{"gateway on/off", "gateway off", 1, []string{"gateway needs up or down"}},
		{"gateway dedup without on or off", "gateway dedup", 1, []string{"gateway needs up or down", "dedup on, dedup off", `found "dedup"`}},
		{"gateway dedup yes", "gateway dedup yes", 1, []string{`found "dedup yes"`}},
		{"gateway timeout with a duration", "gateway timeout 5s", 1, []string{`found "timeout 5s"`}},
		{"gateway stall without a duration", "gateway stall", 1, []string{"stall DURATION", "gateway stall 90m"}},
		{"gateway stall with a bad duration", "gateway stall soon", 1, []string{`gateway stall: "soon" ` + durMsg}},
		{"gateway stall under a second", "gateway stall 10ms", 1, []string{`gateway stall: "10ms" ` + rangeMsg}},
		{"gateway stall too long", "gateway stall 99999999h", 1, []string{`gateway stall: "99999999h" ` + rangeMsg}},

		// Headers.
		{"unknown header lists the valid headers", "titel: x", 1, []string{`unknown header "titel:"`, "valid headers: " + headers}},
		{"empty header name", ": x", 1, []string{`unknown header ":"`, headers}},
		{"verb used as a header", "publish: x", 1, []string{`unknown header "publish:"`}},
		{"header after a step", "deliver\ntitle: late", 2, []string{`header "title:" must come before the first step`}},
		{"max-deliveries header after a step", "publish pay-1 amount=1\n\nmax-deliveries: 3", 3,
			[]string{`header "max-deliveries:" must come before the first step`}},
		{"unknown header after a step", "deliver\nnope: x", 2, []string{`header "nope:" must come before the first step`}},
		{"max-deliveries zero", "max-deliveries: 0", 1, []string{`max-deliveries: "0" is not a whole number from 1 to 100`}},
		{"max-deliveries over the limit", "max-deliveries: 101", 1, []string{`max-deliveries: "101" is not a whole number from 1 to 100`}},
		{"max-deliveries negative", "max-deliveries: -1", 1, []string{`"-1" is not a whole number from 1 to 100`}},
		{"max-deliveries not a number", "max-deliveries: five", 1, []string{`"five" is not a whole number from 1 to 100`}},
		{"max-deliveries fractional", "max-deliveries: 2.5", 1, []string{`"2.5" is not a whole number`}},
		{"max-deliveries empty", "max-deliveries:", 1, []string{`max-deliveries: "" is not a whole number`}},
		{"processing-ttl not a duration", "processing-ttl: forever", 1, []string{`processing-ttl: "forever" ` + durMsg}},
		{"processing-ttl zero", "processing-ttl: 0s", 1, []string{`processing-ttl: "0s" ` + rangeMsg}},
		{"done-ttl too long", "done-ttl: 4000d", 1, []string{`done-ttl: "4000d" ` + rangeMsg}},
		{"done-ttl empty", "done-ttl:", 1, []string{`done-ttl: "" ` + durMsg}},
		{"inbox-retention neither off nor a duration", "inbox-retention: never", 1, []string{`inbox-retention: "never" ` + durMsg}},
		{"inbox-retention OFF in capitals", "inbox-retention: OFF", 1, []string{`inbox-retention: "OFF" ` + durMsg}},
		{"inbox-retention negative", "inbox-retention: -1d", 1, []string{`inbox-retention: "-1d" ` + rangeMsg}},

		// Narration.
		{"narration at the end is not followed by a step", "deliver\n#en: dangling", 2,
			[]string{"narration (#en: / #ru:) must be followed by a step"}},
		{"Russian narration at the end", "deliver\n\n#ru: висит", 3, []string{"must be followed by a step"}},
		{"narration followed only by comments and blank lines", "deliver\n#en: a\n#ru: б\n# comment\n\n", 3,
			[]string{"must be followed by a step"}},
		{"narration followed only by a header", "#en: about the title\ntitle: x", 1, []string{"must be followed by a step"}},

		// Whole-script limits.
		{"more than MaxSteps steps", tooMany, script.MaxSteps + 1, []string{"too many steps: the limit is 1000"}},
		{"script over MaxScriptBytes", tooBig, 0, []string{"script is larger than the limit of 65536 bytes"}},
		{"invalid UTF-8 names its line", "publish pay-1 amount=1\ntitle: \xff\xfe", 2, []string{"not valid UTF-8 text"}},
		{"truncated UTF-8 sequence", "publish \xd0 amount=1", 1, []string{"not valid UTF-8 text"}},
		{"invalid UTF-8 in a comment", "publish pay-1 amount=1\n\n# caf\xe9\ndeliver", 3, []string{"not valid UTF-8 text"}},
		{"the first line with invalid UTF-8", "deliver\n\xff\n\xfe", 2, []string{"not valid UTF-8 text"}},
		{"invalid UTF-8 is refused before the other errors", "frobnicate\n\xff", 2, []string{"not valid UTF-8 text"}},
		{"invalid UTF-8 on the last line without a newline", "deliver\ndeliver\n\xc3", 3, []string{"not valid UTF-8 text"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := parseErr(t, tc.src)
			if e.Line != tc.line {
				t.Errorf("Line = %d, want %d (error: %v)", e.Line, tc.line, e)
			}
			msg := e.Error()
			prefix := fmt.Sprintf("line %d: ", tc.line)
			if tc.line == 0 {
				prefix = "script: "
			}
			if !strings.HasPrefix(msg, prefix) {
				t.Errorf("Error() = %q, want prefix %q", msg, prefix)
			}
			if msg != prefix+e.Message("en") {
				t.Errorf("Error() = %q, want %q", msg, prefix+e.Message("en"))
			}
			for _, w := range tc.want {
				if !strings.Contains(e.Message("en"), w) {
					t.Errorf("message %q does not contain %q", e.Message("en"), w)
				}
			}
		})
	}
}

// TestParseDayDurationOverflow: a day count large enough to overflow
// time.Duration must not wrap around into a valid duration; like any
// duration too large it is out of range.
func TestParseDayDurationOverflow(t *testing.T) {
	// 2^48 days is 2^48 * 86400e9 ns = 2^64 * 675 * 1953125 ns, which is 0
	// modulo 2^64; one day more wraps to exactly 24h.
	const wrapsToOneDay = "281474976710657d"
	for _, src := range []string{
		"advance " + wrapsToOneDay,
		"processing-ttl: " + wrapsToOneDay,
		"done-ttl: " + wrapsToOneDay,
		"inbox-retention: " + wrapsToOneDay,
	} {
		t.Run(src, func(t *testing.T) {
			_, err := script.Parse(src)
			if err == nil {
				t.Fatalf("%q parsed; a day count that overflows must be out of range", src)
			}
			if !strings.Contains(err.Error(), "out of range") {
				t.Errorf("error %q does not say the duration is out of range", err)
			}
		})
	}
}

// TestParseTabAfterVerb: any whitespace separates the verb (or header
// name) from its arguments, as it separates the arguments.
func TestParseTabAfterVerb(t *testing.T) {
	for _, src := range []string{"deliver\tcrash=before-ack", "publish\tpay-1 amount=1", "title:\tTabbed"} {
		t.Run(src, func(t *testing.T) {
			_, err := script.Parse(src)
			if err != nil {
				t.Fatalf("%q: %v", src, err)
			}
		})
	}
}

func TestStepString(t *testing.T) {
	tests := []struct {
		name string
		step script.Step
		want string
	}{
		{"publish with defaults omits them",
			script.Step{Verb: "publish", Op: "pay-1", Tenant: "acme", Account: "alice", Amount: 100, KeyMode: "op"},
			"publish pay-1 amount=100"},
		{"publish with every option",
			script.Step{Verb: "publish", Op: "pay-1", Tenant: "globex", Account: "bob", Amount: 5, KeyMode: "fresh"},
			"publish pay-1 amount=5 tenant=globex account=bob key=fresh"},
		{"retry", script.Step{Verb: "retry", Op: "pay-1", Tenant: "acme"}, "retry pay-1"},
		{"retry with tenant", script.Step{Verb: "retry", Op: "pay-1", Tenant: "globex"}, "retry pay-1 tenant=globex"},
		{"change-payload", script.Step{Verb: "change-payload", Op: "pay-1", Tenant: "acme", Amount: 150}, "change-payload pay-1 amount=150"},
		{"change-payload with tenant", script.Step{Verb: "change-payload", Op: "pay-1", Tenant: "t", Amount: 150},
			"change-payload pay-1 amount=150 tenant=t"},
		{"ship", script.Step{Verb: "ship", Op: "pay-1", Tenant: "acme"}, "ship pay-1"},
		{"deliver", script.Step{Verb: "deliver"}, "deliver"},
		{"deliver with crash", script.Step{Verb: "deliver", Crash: "after-effect"}, "deliver crash=after-effect"},
		{"redeliver", script.Step{Verb: "redeliver"}, "redeliver"},
		{"deliver-concurrent", script.Step{Verb: "deliver-concurrent"}, "deliver-concurrent"},
		{"dlq-replay", script.Step{Verb: "dlq-replay"}, "dlq-replay"},
		{"drain", script.Step{Verb: "drain"}, "drain"},
		{"gateway up", script.Step{Verb: "gateway", Up: true}, "gateway up"},
		{"gateway down", script.Step{Verb: "gateway"}, "gateway down"},
		{"gateway up as parsed", script.Step{Verb: "gateway", Gateway: script.GatewayUp, Up: true}, "gateway up"},
		{"gateway timeout", script.Step{Verb: "gateway", Gateway: script.GatewayTimeout}, "gateway timeout"},
		{"gateway dedup on", script.Step{Verb: "gateway", Gateway: script.GatewayDedupOn}, "gateway dedup on"},
		{"gateway dedup off", script.Step{Verb: "gateway", Gateway: script.GatewayDedupOff}, "gateway dedup off"},
		{"gateway stall", script.Step{Verb: "gateway", Gateway: script.GatewayStall, Stall: 90 * time.Minute}, "gateway stall 1h30m"},
		{"deliver-concurrent same", script.Step{Verb: "deliver-concurrent", Same: true}, "deliver-concurrent same"},
		{"advance whole days", script.Step{Verb: "advance", Advance: 2 * day}, "advance 2d"},
		{"advance 24h is a day", script.Step{Verb: "advance", Advance: 24 * time.Hour}, "advance 1d"},
		{"advance hours drop zero minutes", script.Step{Verb: "advance", Advance: 25 * time.Hour}, "advance 25h"},
		{"advance hours and minutes", script.Step{Verb: "advance", Advance: 90 * time.Minute}, "advance 1h30m"},
		{"advance minutes drop zero seconds", script.Step{Verb: "advance", Advance: 15 * time.Minute}, "advance 15m"},
		{"advance 90s", script.Step{Verb: "advance", Advance: 90 * time.Second}, "advance 1m30s"},
		{"advance seconds", script.Step{Verb: "advance", Advance: 45 * time.Second}, "advance 45s"},
		{"advance with hours, zero minutes and seconds", script.Step{Verb: "advance", Advance: time.Hour + 10*time.Second},
			"advance 1h0m10s"},
		{"advance fractional seconds", script.Step{Verb: "advance", Advance: 1500 * time.Millisecond}, "advance 1.5s"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.step.String(); got != tc.want {
				t.Errorf("String() = %q, want %q", got, tc.want)
			}
		})
	}
}

// allVerbsScript uses every verb, option, crash point and header with a
// value that differs from the default, and narration in both languages.
const allVerbsScript = `# every verb, option and header
title: Everything at once
title-ru: Всё сразу
summary: A script that uses every verb.
summary-ru: Сценарий со всеми глаголами.
max-deliveries: 3
processing-ttl: 90s
done-ttl: 2d
inbox-retention: 1h30m
dedup-window: 90s

#en: Publish with the defaults.
#ru: Публикация по умолчанию.
publish pay-1 amount=100
#en: Every publish option.
publish pay-2 amount=250 tenant=globex account=bob key=v7
#ru: Свежий ключ.
publish pay-3 amount=40 key=fresh
publish pay-4 amount=1 key=op
retry pay-1
retry pay-2 tenant=globex
change-payload pay-1 amount=999
change-payload pay-2 amount=1 tenant=globex
deliver
deliver crash=before-effect
deliver crash=after-effect
deliver crash=before-ack
deliver crash=call:2
deliver crash=after-call:3
redeliver
deliver-concurrent
deliver-concurrent same
deliver-concurrent switch=2,5
deliver-concurrent same switch=1
gateway down
deliver
gateway timeout
gateway dedup on
gateway stall 2h
deliver
gateway dedup off
gateway up
advance 45s
advance 15m
advance 25h
advance 1h30m
advance 3d
ship pay-1
ship pay-2 tenant=globex
drain
dlq-replay
publish ref-1 amount=50 kind=refund order=pay-1
deliver ref-1
deliver pay-4 crash=before-ack
produce ord-1 amount=10
produce ord-2 amount=10 mode=outbox
produce ord-3 amount=10 mode=publish-first crash=after-publish
produce ord-3 amount=10 mode=publish-first
produce ord-4 amount=10 tenant=globex account=bob crash=after-commit
relay crash=after-publish
relay
deliver-batch 2
deliver-batch 3 commit=before crash=after-message:2
`

// checkRoundTrip checks that the canonical form of s parses back to s.
func checkRoundTrip(t *testing.T, s *script.Script) {
	t.Helper()
	canon := s.String()
	s2, err := script.Parse(canon)
	if err != nil {
		t.Fatalf("String() does not parse: %v\n%s", err, canon)
	}
	if !reflect.DeepEqual(withoutLines(s), withoutLines(s2)) {
		t.Errorf("String() parses to a different script\noriginal: %+v\nreparsed: %+v\ncanonical:\n%s", *s, *s2, canon)
	}
	// Parsing the canonical form twice gives equal scripts, lines included.
	s3, err := script.Parse(s2.String())
	if err != nil {
		t.Fatalf("second String() does not parse: %v", err)
	}
	if !reflect.DeepEqual(s2, s3) {
		t.Errorf("canonical form is not a fixed point\nfirst:  %+v\nsecond: %+v", *s2, *s3)
	}
	if again := s2.String(); again != canon {
		t.Errorf("String() is not stable:\n%s\n---\n%s", canon, again)
	}
}

// allAPIScript uses every verb and option of the API side (a script tells
// one side: see TestScriptSides).
const allAPIScript = `key-ttl: 10m
client-retry: exponential-jitter base=30s cap=4m attempts=3 retry-after
server-capacity: 2
request pay-1 amount=100
request pay-2 amount=250 tenant=globex account=bob key=v7 lose-response
request pay-3 amount=40 key=fresh crash=after-effect
request pay-4 amount=1 key=none
retry pay-1
retry pay-1 amount=150 lose-response
retry pay-2 tenant=globex crash=call:3
request-concurrent pay-5 amount=70 switch=2,4
request-concurrent pay-1
advance 11m
gateway dedup on
retry pay-3 crash=after-call:2
complete
`

func TestScriptStringRoundTrip(t *testing.T) {
	t.Run("hand-written script with every verb", func(t *testing.T) {
		s := parseOK(t, allVerbsScript)
		if len(s.Steps) != 48 {
			t.Fatalf("got %d steps, want 48", len(s.Steps))
		}
		api := parseOK(t, allAPIScript)
		// duplicate reads only under a broker that makes copies.
		sqs := parseOK(t, "broker: sqs\npublish a amount=1\ndeliver\nduplicate a\n")
		seen := map[string]bool{}
		for _, st := range append(append(s.Steps, api.Steps...), sqs.Steps...) {
			seen[st.Verb] = true
		}
		for _, v := range script.Verbs() {
			if !seen[v] {
				t.Errorf("allVerbsScript, allAPIScript and the sqs script lack verb %s", v)
			}
		}
		checkRoundTrip(t, s)
		checkRoundTrip(t, api)
		checkRoundTrip(t, sqs)
		if !api.API || s.API {
			t.Errorf("API: %v for the API script, %v for the broker's", api.API, s.API)
		}
	})
	t.Run("canonical form of the hand-written script", func(t *testing.T) {
		s := parseOK(t, allVerbsScript)
		canon := s.String()
		for _, want := range []string{
			"title: Everything at once\n", "max-deliveries: 3\n", "processing-ttl: 1m30s\n", "done-ttl: 2d\n",
			"inbox-retention: 1h30m\n", "dedup-window: 1m30s\n", "#en: Publish with the defaults.\n#ru: Публикация по умолчанию.\npublish pay-1 amount=100\n",
			"publish pay-2 amount=250 tenant=globex account=bob key=v7\n", "#ru: Свежий ключ.\npublish pay-3 amount=40 key=fresh\n",
			"publish pay-4 amount=1\n", "advance 25h\n", "advance 3d\n", "ship pay-2 tenant=globex\n",
			"deliver-concurrent same\n", "gateway timeout\n", "gateway dedup on\n", "gateway stall 2h\n", "gateway dedup off\n",
		} {
			if !strings.Contains(canon, want) {
				t.Errorf("canonical form lacks %q:\n%s", want, canon)
			}
		}
		if strings.Contains(canon, "# every verb") {
			t.Errorf("canonical form keeps comments:\n%s", canon)
		}
	})
	t.Run("defaults are omitted", func(t *testing.T) {
		s := parseOK(t, "max-deliveries: 5\nprocessing-ttl: 1h\ndone-ttl: 24h\ninbox-retention: off\npublish pay-1 amount=1 tenant=acme account=alice key=op\n")
		if got, want := s.String(), "publish pay-1 amount=1\n"; got != want {
			t.Errorf("String() = %q, want %q", got, want)
		}
	})
	t.Run("empty script", func(t *testing.T) {
		checkRoundTrip(t, parseOK(t, ""))
	})

	presets, err := sim.Presets()
	if err != nil {
		t.Fatalf("Presets: %v", err)
	}
	if len(presets) == 0 {
		t.Fatal("no presets")
	}
	for _, p := range presets {
		t.Run("preset "+p.Name, func(t *testing.T) {
			checkRoundTrip(t, p.Script)
			// The preset's own source parses to the same script as it came with.
			if s := parseOK(t, p.Source); !reflect.DeepEqual(s, p.Script) {
				t.Errorf("Parse(Source) differs from Script")
			}
		})
	}
}

// TestScriptSides: a script tells the broker side or the API side, and
// says which line made it so when a verb of the other side follows; a
// retry is the client's or the producer's by what its operation was.
func TestScriptSides(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"publish a amount=1\nrequest b amount=1\n", "line 2: request is the API side, and this script tells the broker side (line 1)"},
		{"request b amount=1\ndeliver\n", "line 2: deliver is the broker side, and this script tells the API side (line 1)"},
		{"request a amount=1\nrequest a amount=1\n", "line 2: operation a of tenant acme is already sent; use retry"},
		{"request a amount=1\nretry a account=bob\n", `line 2: retry: unknown option "account"`},
		{"request-concurrent a\n", "line 1: request-concurrent needs amount=N"},
		{"request a amount=1\nrequest-concurrent a amount=2\n", "line 2: request-concurrent of a request sent before repeats it as it was"},
		{"request a amount=1 key=uuid\n", "line 1: key=uuid: unknown key mode; valid modes: op, v7, fresh, none"},
		{"request a amount=1 crash=before-ack\n", "line 1: crash=before-ack: unknown crash point; valid points: before-effect, after-effect, call:N"},
		{"request a amount=1 lose-response lose-response\n", "line 1: request: lose-response given twice"},
		{"retry a\n", "line 1: retry: operation a of tenant acme has not been published yet"},
		{"key-ttl: soon\nrequest a amount=1\n", "line 1: key-ttl"},
	} {
		_, err := script.Parse(c.src)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.src, err, c.want)
		}
	}
	s := parseOK(t, "request a amount=1\nretry a\npublish-free: no\n"[:len("request a amount=1\nretry a\n")])
	if !s.Steps[1].API {
		t.Errorf("retry of a request is not the API's")
	}
}

// TestDedupWindowHeader: the broker's dedup window is a header of its own,
// off by default, read as a duration, and a bad value names the header.
func TestDedupWindowHeader(t *testing.T) {
	if s := parseOK(t, "publish a amount=1\n"); s.DedupWindow != 0 {
		t.Errorf("default %v, want off", s.DedupWindow)
	}
	if s := parseOK(t, "dedup-window: 2m\ndedup-window: off\npublish a amount=1\n"); s.DedupWindow != 0 {
		t.Errorf("off: %v", s.DedupWindow)
	}
	if _, err := script.Parse("dedup-window: soon\npublish a amount=1\n"); err == nil || !strings.Contains(err.Error(), "line 1: dedup-window") {
		t.Errorf("a bad window: %v", err)
	}
}
