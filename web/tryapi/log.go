package tryapi

import (
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/web/page"
)

// MaxLogEntries is how many requests a ledger's log keeps: the newest.
const MaxLogEntries = 50

// maxKeyExcerpt bounds the Idempotency-Key a log entry keeps, in runes
// (a valid key has at most 255 characters; an invalid one any number).
const maxKeyExcerpt = 64

// LogEntry is one request to a ledger's payments address, as answered.
type LogEntry struct {
	Seq    int       // 1 for the ledger's first logged request
	Time   time.Time // when it was answered, on Config.Now's clock
	Method string    // POST or GET
	// Key is the Idempotency-Key header as received (its values joined
	// with ", " when sent more than once), cut to maxKeyExcerpt runes;
	// NoKey says that no such header came.
	Key      string
	NoKey    bool
	Status   int
	Replayed bool // the saved answer to an earlier request
}

// requestLogs keeps each ledger name's log. A log lives apart from its
// ledger: a request refused before a ledger is made (a body that is not
// valid, say) is logged too. Logs are bounded like ledgers: at most
// max names, a log idle for idle (no request) is dropped, and past max
// the log written longest ago goes.
type requestLogs struct {
	max  int
	idle time.Duration

	mu   sync.Mutex
	logs map[string]*requestLog
}

type requestLog struct {
	seq     int
	last    time.Time
	entries []LogEntry // oldest first, at most MaxLogEntries
}

func newRequestLogs(max int, idle time.Duration) *requestLogs {
	return &requestLogs{max: max, idle: idle, logs: map[string]*requestLog{}}
}

// add appends e to name's log, numbering it.
func (l *requestLogs) add(name string, e LogEntry) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for n, lg := range l.logs {
		if e.Time.Sub(lg.last) >= l.idle {
			delete(l.logs, n)
		}
	}
	lg := l.logs[name]
	if lg == nil {
		if len(l.logs) >= l.max {
			oldest := ""
			for n, o := range l.logs {
				if oldest == "" || o.last.Before(l.logs[oldest].last) {
					oldest = n
				}
			}
			delete(l.logs, oldest)
		}
		lg = &requestLog{}
		l.logs[name] = lg
	}
	lg.seq++
	e.Seq = lg.seq
	lg.last = e.Time
	lg.entries = append(lg.entries, e)
	if n := len(lg.entries); n > MaxLogEntries {
		lg.entries = append(lg.entries[:0:0], lg.entries[n-MaxLogEntries:]...)
	}
}

// newest is name's log, newest first.
func (l *requestLogs) newest(name string) []LogEntry {
	l.mu.Lock()
	defer l.mu.Unlock()
	lg := l.logs[name]
	if lg == nil {
		return nil
	}
	out := make([]LogEntry, len(lg.entries))
	for i, e := range lg.entries {
		out[len(out)-1-i] = e
	}
	return out
}

// Record logs an answer the lab gave for a ledger's payments address
// before the API's own handler was reached: the throttle's 429, the
// cross-origin 403, the 405 of a method the address does not take (the
// server's middleware and router answer those). With it every answer for
// a ledger's name is in its log, whoever gave it. A request for any
// other address, or whose name is not valid, is not logged.
func (a *TryAPI) Record(r *http.Request, status int) { a.record(r, status, false) }

// paymentsPrefix and paymentsSuffix frame a ledger's payments address.
const paymentsPrefix, paymentsSuffix = "/api/v1/ledgers/", "/payments"

// ledgerNameOf is the ledger named by a request for a payments address:
// the route's {ledger}, or, for a request answered before routing (the
// cross-origin refusal), read from the path itself. "" if the address is
// not a payments address.
func ledgerNameOf(r *http.Request) string {
	if name := chi.URLParam(r, "ledger"); name != "" {
		return name
	}
	p := r.URL.Path
	if !strings.HasPrefix(p, paymentsPrefix) || !strings.HasSuffix(p, paymentsSuffix) || len(p) < len(paymentsPrefix)+len(paymentsSuffix) {
		return ""
	}
	return p[len(paymentsPrefix) : len(p)-len(paymentsSuffix)]
}

// record logs a request to a ledger's payments address with its answer.
// A request whose ledger name is not valid has no log to go to.
func (a *TryAPI) record(r *http.Request, status int, replayed bool) {
	name := ledgerNameOf(r)
	if !ledgerName().MatchString(name) {
		return
	}
	keys := r.Header.Values("Idempotency-Key")
	key := strings.Join(keys, ", ")
	if len(key) > maxKeyExcerpt {
		key = cut(key, maxKeyExcerpt)
	}
	a.logs.add(name, LogEntry{Time: a.now(), Method: r.Method, Key: key, NoKey: len(keys) == 0, Status: status, Replayed: replayed})
}

// cut is s cut to at most n runes, with "…" when cut.
func cut(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j] + "…"
		}
		i++
	}
	return s
}

// logView is a log entry as the page shows it.
type logView struct {
	Seq, Time, Method, Key, Status, Kind string
	NoKey, Replayed                      bool
	StatusCode                           int
}

func logViews(t page.Text, entries []LogEntry) []logView {
	var out []logView
	for _, e := range entries {
		v := logView{Seq: strconv.Itoa(e.Seq), Time: e.Time.UTC().Format("15:04:05.000"), Method: e.Method, Key: e.Key,
			NoKey: e.NoKey, Replayed: e.Replayed, StatusCode: e.Status, Status: strconv.Itoa(e.Status) + " " + http.StatusText(e.Status)}
		switch {
		case e.Replayed:
			v.Kind = t.S("try.log.replayed")
		case e.Status >= 200 && e.Status < 300:
			v.Kind = t.S("try.log.ok")
		default:
			v.Kind = t.S("try.log.refused")
		}
		out = append(out, v)
	}
	return out
}
