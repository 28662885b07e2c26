package timeline

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

var (
	update  = flag.Bool("update", false, "rewrite the golden files in testdata")
	preview = flag.String("preview", "", "write an HTML page with the diagrams of a few runs to this file")
)

// run executes a preset on one handler and returns that handler's result.
func run(t testing.TB, preset, handler string) sim.Result {
	t.Helper()
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	p, err := sim.FindPreset(ps, preset)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Results[0]
}

// runScript parses and executes a script on one handler.
func runScript(t testing.TB, src, handler string) sim.Result {
	t.Helper()
	s, err := script.Parse(src)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Execute(context.Background(), s, sim.Options{Handlers: []string{handler}})
	if err != nil {
		t.Fatal(err)
	}
	return r.Results[0]
}

func render(t testing.TB, d Diagram) string {
	t.Helper()
	var b bytes.Buffer
	if err := View(d).Render(context.Background(), &b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func actors(d Diagram) []string {
	var out []string
	for _, l := range d.Lifelines {
		out = append(out, l.Actor)
	}
	return out
}

func countEvents(traces []sim.Trace) int {
	n := 0
	for _, tr := range traces {
		n += len(tr.Events)
	}
	return n
}

func TestBuild(t *testing.T) {
	tests := []struct {
		name, preset, handler string
		current               int
		lifelines             string // actors, space-separated
		crash                 bool
	}{
		{"naive crash before ack", "crash-before-ack", "naive", 2, "producer broker worker sqlite", true},
		{"setnx adds redis and gateway", "crash-before-ack", "setnx", 4, "producer broker worker sqlite redis gateway", true},
		{"inbox", "crash-before-ack", "inbox", 0, "producer broker worker sqlite", true},
		{"happy path has no crash", "happy-path", "unique", 1, "producer broker worker sqlite", false},
		{"concurrency gives two workers", "concurrent-duplicates", "check-then-insert", 3, "producer broker worker-1 worker-2 sqlite", false},
		{"two workers and redis", "concurrent-duplicates", "setnx", 3, "producer broker worker-1 worker-2 sqlite redis gateway", false},
		{"gateway switch alone shows the gateway", "gateway-failure", "naive", 0, "producer broker worker sqlite gateway", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			res := run(t, tc.preset, tc.handler)
			d := Build(res.Trace, tc.current, EnglishLabels())
			if got := strings.Join(actors(d), " "); got != tc.lifelines {
				t.Errorf("lifelines = %q, want %q", got, tc.lifelines)
			}
			if want := len(res.Trace) + countEvents(res.Trace); len(d.Rows) != want {
				t.Errorf("%d rows, want %d (one band per step, one row per event)", len(d.Rows), want)
			}
			crashes := 0
			for _, r := range d.Rows {
				if r.Crash {
					crashes++
					if len(r.Lines) != 2 || r.Lines[0].Class != "tl-cross" {
						t.Errorf("crash row without its ✕: %+v", r.Lines)
					}
					if !strings.Contains(r.Texts[0].S, "CRASH") {
						t.Errorf("crash row without the word: %q", r.Texts[0].S)
					}
				}
			}
			if (crashes > 0) != tc.crash {
				t.Errorf("%d crash markers, want crash=%v", crashes, tc.crash)
			}
			bands, current := 0, 0
			for _, r := range d.Rows {
				if r.Kind != "step" {
					continue
				}
				bands++
				if r.ID != "step-"+strconv.Itoa(r.Step) {
					t.Errorf("band id %q for step %d", r.ID, r.Step)
				}
				if r.Current {
					current++
					if r.Step != tc.current || !strings.Contains(r.Class, "tl-current") || !strings.HasPrefix(r.Texts[0].S, "▶") {
						t.Errorf("step %d highlighted wrongly: %+v", r.Step, r)
					}
				}
			}
			if bands != len(res.Trace) {
				t.Errorf("%d bands, want %d", bands, len(res.Trace))
			}
			if want := min(tc.current, 1); current != want || (d.Highlight != nil) != (want == 1) {
				t.Errorf("%d bands highlighted (background %v), want %d", current, d.Highlight != nil, want)
			}
			checkInside(t, d)
		})
	}
}

// checkInside checks that every text stays inside the diagram and inside
// its box, by the width estimate the layout uses.
func checkInside(t *testing.T, d Diagram) {
	t.Helper()
	for _, r := range d.Rows {
		for _, tx := range r.Texts {
			adv := charW
			switch tx.Size {
			case bandSize:
				adv = bandCharW
			case crashSize:
				adv = crashCharW
			}
			w := int(float64(cells(tx.S)) * adv)
			lo, hi := tx.X, tx.X+w
			if tx.Anchor == "middle" {
				lo, hi = tx.X-w/2, tx.X+w/2
			}
			if lo < 0 || hi > d.Width {
				t.Errorf("text %q at %d..%d leaves the diagram (width %d)", tx.S, lo, hi, d.Width)
			}
			for _, b := range r.Boxes {
				if b.Class == "tl-crash-bg" || b.Class == "tl-side" {
					continue
				}
				if tx.Y > b.Y && tx.Y < b.Y+b.H && (lo < b.X || hi > b.X+b.W) {
					t.Errorf("text %q at %d..%d leaves its box %d..%d", tx.S, lo, hi, b.X, b.X+b.W)
				}
			}
		}
	}
}

func TestTwoWorkerColumnsOnlyWithTwoWorkers(t *testing.T) {
	// deliver-concurrent with a single ready message: one worker takes it.
	res := runScript(t, "publish pay-1 amount=100\ndeliver-concurrent\n", "naive")
	d := Build(res.Trace, 0, EnglishLabels())
	if got := strings.Join(actors(d), " "); got != "producer broker worker sqlite" {
		t.Errorf("lifelines = %q", got)
	}
	res = run(t, "concurrent-duplicates", "naive")
	d = Build(res.Trace, 0, RussianLabels())
	var labels []string
	for _, l := range d.Lifelines {
		labels = append(labels, l.Label)
	}
	if got := strings.Join(labels, "|"); got != "Продюсер|Брокер|Воркер 1|Воркер 2|SQLite" {
		t.Errorf("labels = %q", got)
	}
	// Each worker's SQL leaves from its own lifeline.
	x := map[string]int{}
	for _, l := range d.Lifelines {
		x[l.Actor] = l.X
	}
	for _, r := range d.Rows {
		if r.Kind == sim.KindSQL && len(r.Lines) > 0 && r.Lines[0].X1 != x[r.Actor] {
			t.Errorf("%s's statement starts at %d, not at its lifeline %d", r.Actor, r.Lines[0].X1, x[r.Actor])
		}
	}
}

func TestTruncation(t *testing.T) {
	long := "INSERT INTO transactions (idempotency_key, account, amount, note, created_at, updated_at, tenant, operation_id, payload_hash) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
	traces := []sim.Trace{{Step: 1, Text: "deliver", Events: []sim.Event{
		{Actor: "broker", Kind: sim.KindDeliver, Text: "topups/0/1 to worker-1: key pay-1, alice +100 (delivery 1)"},
		{Actor: "worker-1", Kind: sim.KindSQL, Text: long, Args: "'pay-1', 'alice', 100", Result: "1 row affected"},
		{Actor: "worker-1", Kind: sim.KindAck, Text: "ack topups/0/1"},
	}}}
	d := Build(traces, 1, EnglishLabels())
	r := d.Rows[2]
	var shown []string
	for _, tx := range r.Texts {
		shown = append(shown, tx.S)
	}
	if len(shown) != labelLines+1 || !strings.HasSuffix(shown[labelLines-1], "…") || shown[labelLines] != "1 row affected" {
		t.Errorf("statement not cut to %d lines with an ellipsis, then the result: %q", labelLines, shown)
	}
	if strings.Contains(strings.Join(shown, " "), "payload_hash) VALUES") {
		t.Errorf("long statement shown whole: %q", shown)
	}
	for _, want := range []string{long, "'pay-1', 'alice', 100", "1 row affected"} {
		if !strings.Contains(r.Tip, want) {
			t.Errorf("tip %q lacks %q", r.Tip, want)
		}
	}
	checkInside(t, d)
	svg := render(t, d)
	if !strings.Contains(svg, "<title>worker-1: "+strings.ReplaceAll(long, "'", "&#39;")) {
		t.Errorf("full statement missing from the row's <title>")
	}
}

func TestWrap(t *testing.T) {
	tests := []struct {
		s     string
		max   int
		lines int
		want  string
	}{
		{"short", 10, 2, "short"},
		{"one two three", 7, 2, "one two|three"},
		{"one two three four", 7, 2, "one two|three…"},
		{"abcdefghijklmnop", 6, 3, "abcdef|ghijkl|mnop"},
		{"abcdefghijklmnopqrstuvwxyz", 6, 2, "abcdef|ghijk…"},
		{"", 5, 2, ""},
		{"ab ✓ cd", 5, 2, "ab ✓|cd"},
	}
	for _, tc := range tests {
		got := strings.Join(wrap(tc.s, tc.max, tc.lines), "|")
		if got != tc.want {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", tc.s, tc.max, tc.lines, got, tc.want)
		}
		for _, l := range wrap(tc.s, tc.max, tc.lines) {
			if cells(l) > tc.max {
				t.Errorf("wrap(%q): line %q is wider than %d", tc.s, l, tc.max)
			}
		}
	}
}

func TestBalance(t *testing.T) {
	tests := []struct {
		s          string
		max, lines int
		want       string
	}{
		{"DELETE FROM inbox WHERE created_at < ?", 36, 3, "DELETE FROM inbox|WHERE created_at < ?"},
		{"short", 36, 3, "short"},
		{"one two three four five six seven", 10, 2, "one two|three fou…"},
	}
	for _, tc := range tests {
		if got := strings.Join(balance(tc.s, tc.max, tc.lines), "|"); got != tc.want {
			t.Errorf("balance(%q, %d, %d) = %q, want %q", tc.s, tc.max, tc.lines, got, tc.want)
		}
	}
}

func TestEscaping(t *testing.T) {
	evil := "<script>alert(1)</script>"
	traces := []sim.Trace{{Step: 1, Text: "publish " + evil, Events: []sim.Event{
		{Actor: "producer", Kind: sim.KindPublish, Text: "publish: key " + evil},
		{Actor: "broker", Kind: sim.KindDeliver, Text: "topups/0/1 to worker-1: key " + evil},
		{Actor: "worker-1", Kind: sim.KindSQL, Text: "SELECT 1 WHERE k = ?", Args: "'" + evil + "'", Result: evil},
		{Actor: "worker-1", Kind: sim.KindRedis, Text: "SET idem:" + evil + " processing NX", Result: "OK"},
		{Actor: "worker-1", Kind: sim.KindLog, Text: "key " + evil + " \"quoted\" & done"},
		{Actor: evil, Kind: evil, Text: evil},
	}}}
	svg := render(t, Build(traces, 1, EnglishLabels()))
	if strings.Contains(svg, "<script") || strings.Contains(svg, "</script") {
		t.Fatalf("unescaped markup in the SVG:\n%s", svg)
	}
	if !strings.Contains(svg, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Errorf("the key is not shown escaped")
	}
	wellFormed(t, svg)
}

// wellFormed decodes the SVG as XML and checks its root.
func wellFormed(t *testing.T, svg string) {
	t.Helper()
	dec := xml.NewDecoder(strings.NewReader(svg))
	depth, root := 0, ""
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if depth == 0 {
				if root != "" {
					t.Fatalf("second root element %q", el.Name.Local)
				}
				root = el.Name.Local
				attrs := map[string]string{}
				for _, a := range el.Attr {
					attrs[a.Name.Local] = a.Value
				}
				if attrs["role"] != "img" || attrs["width"] == "" || attrs["height"] == "" || !strings.HasPrefix(attrs["viewBox"], "0 0 ") {
					t.Errorf("root attributes: %v", attrs)
				}
			}
			depth++
		case xml.EndElement:
			depth--
		}
	}
	if root != "svg" || depth != 0 {
		t.Errorf("root %q, depth at end %d", root, depth)
	}
	if !strings.Contains(svg, "<title>") || !strings.Contains(svg, "<desc>") {
		t.Errorf("no <title> or <desc>")
	}
}

var goldens = []struct{ file, preset, handler string }{
	{"crash-before-ack-naive.svg", "crash-before-ack", "naive"},
	{"crash-before-ack-setnx.svg", "crash-before-ack", "setnx"},
	{"concurrent-duplicates-check-then-insert.svg", "concurrent-duplicates", "check-then-insert"},
}

func TestGolden(t *testing.T) {
	for _, g := range goldens {
		t.Run(g.file, func(t *testing.T) {
			res := run(t, g.preset, g.handler)
			d := Build(res.Trace, 2, EnglishLabels())
			svg := render(t, d)
			wellFormed(t, svg)
			if again := render(t, Build(run(t, g.preset, g.handler).Trace, 2, EnglishLabels())); again != svg {
				t.Fatalf("two builds of the same run differ")
			}
			path := filepath.Join("testdata", g.file)
			if *update {
				if err := os.WriteFile(path, []byte(svg+"\n"), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run go test -update to create it)", err)
			}
			if string(want) != svg+"\n" {
				t.Errorf("%s differs from the rendered SVG; if the change is intended, run go test ./web/labview/timeline -update", path)
			}
		})
	}
}

func TestWellFormedAllPresets(t *testing.T) {
	ps, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range ps {
		r, err := sim.Execute(context.Background(), p.Script, sim.Options{Handlers: []string{"all"}})
		if err != nil {
			t.Fatal(err)
		}
		for _, res := range r.Results {
			for _, l := range []Labels{EnglishLabels(), RussianLabels()} {
				traces := append(append([]sim.Trace{}, res.Trace...), res.Settlement)
				d := Build(traces, 1, l)
				svg := render(t, d)
				wellFormed(t, svg)
				checkInside(t, d)
				if again := render(t, Build(traces, 1, l)); again != svg {
					t.Fatalf("%s on %s: two renders differ", p.Name, res.Handler)
				}
			}
		}
	}
}

func TestEmpty(t *testing.T) {
	d := Build(nil, 3, EnglishLabels())
	if len(d.Rows) != 0 || d.Highlight != nil || len(d.Lifelines) != 4 {
		t.Errorf("empty run: %d rows, highlight %v, %d lifelines", len(d.Rows), d.Highlight, len(d.Lifelines))
	}
	wellFormed(t, render(t, d))
	// A step with no events is still a band; the settlement (step 0) too.
	d = Build([]sim.Trace{{Step: 1, Text: "deliver"}, {Step: 0, Text: "settle"}}, 1, RussianLabels())
	if len(d.Rows) != 2 || d.Rows[0].ID != "step-1" || d.Rows[1].ID != "settlement" || !d.Rows[0].Current {
		t.Errorf("rows: %+v", d.Rows)
	}
	if d.Title != "Продюсер → Брокер → Воркер → SQLite · Шаг 1" {
		t.Errorf("title %q", d.Title)
	}
}

func TestIDPrefix(t *testing.T) {
	d := Build(run(t, "happy-path", "naive").Trace, 0, EnglishLabels())
	d.IDPrefix = "naive-"
	svg := render(t, d)
	if !strings.Contains(svg, `id="naive-step-1"`) || strings.Contains(svg, `id="step-1"`) {
		t.Errorf("ids not prefixed")
	}
}

// TestPreview writes an HTML page to look at: go test ./web/timeline -run Preview -preview /tmp/tl.html
func TestPreview(t *testing.T) {
	if *preview == "" {
		t.Skip("no -preview file")
	}
	css, err := os.ReadFile("../../static/timeline.css")
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	theme := os.Getenv("TL_THEME")
	b.WriteString(`<!doctype html><html data-theme="` + theme + `"><meta charset="utf-8"><style>` + string(css) +
		`body{margin:0;padding:16px;font-family:sans-serif;background:#ccc} [data-theme=dark] body{background:#000} h2{margin:24px 0 8px}` + os.Getenv("TL_CSS") + `</style><body>`)
	for _, p := range strings.Split(os.Getenv("TL_RUNS"), ",") {
		preset, handler, _ := strings.Cut(p, ":")
		if preset == "" {
			continue
		}
		l := EnglishLabels()
		if os.Getenv("TL_LANG") == "ru" {
			l = RussianLabels()
		}
		res := run(t, preset, handler)
		b.WriteString("<h2>" + preset + " · " + handler + "</h2>")
		b.WriteString(render(t, Build(res.Trace, 2, l)))
	}
	b.WriteString("</body></html>")
	if err := os.WriteFile(*preview, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// rowsOf are the event rows of one step, by actor and kind.
func rowsOf(d Diagram, step int, actor, kind string) []Row {
	var out []Row
	for _, r := range d.Rows {
		if r.Step == step && r.Actor == actor && r.Kind == kind {
			out = append(out, r)
		}
	}
	return out
}

// TestProducerSide: the order service's own statements and its outbox
// relay's are side rows to SQLite under their own tags, a relay's
// publish is an arrow from the producer's column to the broker, and the
// relay's crash is drawn on the producer's column, not on a worker's.
func TestProducerSide(t *testing.T) {
	for _, lang := range []string{"en", "ru"} {
		t.Run(lang, func(t *testing.T) {
			l := EnglishLabels()
			if lang == "ru" {
				l = RussianLabels()
			}
			res := run(t, "outbox-relay-crash", "naive")
			d := Build(res.Trace, 2, l)
			if got := strings.Join(actors(d), " "); got != "producer broker worker sqlite" {
				t.Errorf("lifelines = %q: the relay has no column of its own", got)
			}
			x := map[string]int{}
			for _, ll := range d.Lifelines {
				x[ll.Actor] = ll.X
			}
			side := func(step int, actor, tag string) {
				t.Helper()
				rows := rowsOf(d, step, actor, sim.KindSQL)
				if len(rows) == 0 {
					t.Fatalf("step %d: no SQL rows of %s", step, actor)
				}
				for _, r := range rows {
					if !strings.Contains(r.Class, "tl-k-side") {
						t.Errorf("step %d: %s's statement is not a side row: %q", step, actor, r.Class)
					}
					var texts []string
					for _, tx := range r.Texts {
						texts = append(texts, tx.S)
					}
					if !slicesContains(texts, tag) {
						t.Errorf("step %d: %s's statement lacks its tag %q: %q", step, actor, tag, texts)
					}
					if len(r.Lines) == 0 || r.Lines[0].X2 < x["sqlite"]-tipLen-4 || r.Lines[0].X2 > x["sqlite"] || r.Lines[0].X1 <= x["worker"] {
						t.Errorf("step %d: %s's statement does not reach SQLite: %+v", step, actor, r.Lines)
					}
				}
			}
			side(1, "producer", l.OrderService)
			side(2, "relay", l.Relay)
			side(4, "relay", l.Relay)
			for _, step := range []int{2, 4} {
				pubs := rowsOf(d, step, "relay", sim.KindPublish)
				if len(pubs) != 1 {
					t.Fatalf("step %d: %d relay publishes, want 1", step, len(pubs))
				}
				ln := pubs[0].Lines[0]
				if ln.X1 != x["producer"] || ln.X2 > x["broker"] || ln.X2 < x["broker"]-tipLen-4 || len(pubs[0].Heads) == 0 {
					t.Errorf("step %d: the relay's publish is not an arrow from the producer (%d) to the broker (%d): %+v", step, x["producer"], x["broker"], ln)
				}
			}
			crash := rowsOf(d, 2, "relay", sim.KindCrash)
			if len(crash) != 1 || !crash[0].Crash {
				t.Fatalf("step 2: no crash row of the relay: %+v", crash)
			}
			if c := crash[0].Lines[0]; (c.X1+c.X2)/2 != x["producer"] {
				t.Errorf("the relay's crash is at %d, not on the producer's column %d", (c.X1+c.X2)/2, x["producer"])
			}
			checkInside(t, d)
			wellFormed(t, render(t, d))
		})
	}
	// The order service's crash (dual write, after its commit) is on the
	// producer's column too, after its side rows.
	res := run(t, "dual-write-lost", "naive")
	d := Build(res.Trace, 1, EnglishLabels())
	x := map[string]int{}
	for _, ll := range d.Lifelines {
		x[ll.Actor] = ll.X
	}
	crash := rowsOf(d, 1, "producer", sim.KindCrash)
	if len(crash) != 1 {
		t.Fatalf("no crash row of the order service")
	}
	if c := crash[0].Lines[0]; (c.X1+c.X2)/2 != x["producer"] {
		t.Errorf("the order service's crash is at %d, not on the producer's column %d", (c.X1+c.X2)/2, x["producer"])
	}
	if n := len(rowsOf(d, 1, "producer", sim.KindSQL)); n != 3 {
		t.Errorf("%d order-service statements, want BEGIN, INSERT, COMMIT", n)
	}
	checkInside(t, d)
}

// TestBatchCommit: a batch's offset commit is worker-1's ack, an arrow
// back to the broker after the batch's deliveries.
func TestBatchCommit(t *testing.T) {
	res := run(t, "batch-crash-replay", "naive")
	d := Build(res.Trace, 0, EnglishLabels())
	x := map[string]int{}
	for _, ll := range d.Lifelines {
		x[ll.Actor] = ll.X
	}
	found := false
	for _, r := range d.Rows {
		if r.Kind != sim.KindAck || !strings.Contains(r.Tip, "commit offset") {
			continue
		}
		found = true
		if ln := r.Lines[0]; ln.X1 != x["worker"] || ln.X2 < x["broker"] || ln.X2 > x["worker"] {
			t.Errorf("the offset commit is not an arrow from the worker (%d) to the broker (%d): %+v", x["worker"], x["broker"], ln)
		}
	}
	if !found {
		t.Errorf("no offset commit on the timeline")
	}
	checkInside(t, d)
}

func slicesContains(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}
