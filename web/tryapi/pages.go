package tryapi

import (
	"crypto/rand"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"sync"

	"github.com/go-chi/chi/v5"

	"github.com/idempotency-lab/lab/web/page"
)

// view models

type indexView struct {
	T       page.Text
	Name    string // the name the form offers
	Problem string // why the name asked for is not one
	Limits  string
	Cheat   []cmdView
}

type ledgerView struct {
	T                 page.Text
	Name              string
	PageURL, StateURL string
	Limits            string
	State             stateView
	Cheat             []cmdView
	Console           consoleView
}

type stateView struct {
	Active   bool
	Log      []logView // newest first
	Keys     []keyView
	Payments []paymentView
	Accounts []accountView
}

type keyView struct {
	Key, Fingerprint, Point string
	Locked                  bool
	LockedText, Response    string
}

type paymentView struct{ ID, Account, Amount, Reference, Calls string }

type accountView struct{ ID, Balance string }

// cmdView is one command of the cheat-sheet: what it does, the command
// (in two terminals for the race) and what the server answers.
type cmdView struct {
	ID, Title, Answer string
	Shells            []shellView
}

type shellView struct{ Label, Cmd string }

// answerRow is a status the endpoint answers, with its anchor (the type of
// this package's problems) and its explanation's key.
type answerRow struct {
	ID     string
	Status int
	Key    string
}

var answerRows = []answerRow{
	{"created", 201, "201"},
	{"replayed", 201, "replay"},
	{"key-required", 400, "400.key"},
	{"invalid-request", 400, "400"},
	{"not-found", 404, "404"},
	{"cross-origin", 403, "403"},
	{"account-not-found", 404, "404.account"},
	{"method-not-allowed", 405, "405"},
	{"in-progress", 409, "409"},
	{"body-too-large", 413, "413"},
	{"unsupported-media-type", 415, "415"},
	{"key-reused", 422, "422"},
	{"too-many-requests", 429, "429"},
	{"server-error", 500, "500"},
	{"gateway-failed", 502, "502"},
	{"ledgers-full", 503, "503"},
	{"ledger-full", 507, "507"},
}

// Index is GET /try-api: what the endpoint is, a form to pick a ledger
// name, and the cheat-sheet. With ?ledger=NAME (the form) it goes to
// that ledger's page, or says why the name is not one.
func (a *TryAPI) Index(w http.ResponseWriter, r *http.Request) error {
	t := a.Shell.Text(r)
	// The cheat-sheet uses the name the form offers, so that copying
	// either leads to the same ledger.
	name := suggestName()
	v := indexView{T: t, Name: name, Limits: a.limits(t), Cheat: commands(t, baseURL(r), name)}
	status := http.StatusOK
	if q := r.URL.Query(); q.Has("ledger") {
		name := q.Get("ledger")
		if ledgerName().MatchString(name) {
			http.Redirect(w, r, "/try-api/"+name+langQuery(r), http.StatusSeeOther)
			return nil
		}
		status, v.Problem = http.StatusBadRequest, t.F("try.err.name", page.InputExcerpt(name))
	}
	w.Header().Set("Cache-Control", "no-store")
	return a.Shell.Render(w, r, status, indexPage(a.pageFor(t, r, t.S("try.title")), v))
}

// LedgerPage is GET /try-api/{ledger}: its tables, refreshed every two
// seconds, and the cheat-sheet filled in with this server's address and
// the ledger's name.
func (a *TryAPI) LedgerPage(w http.ResponseWriter, r *http.Request) error {
	name, err := pageLedger(r)
	if err != nil {
		return err
	}
	t := a.Shell.Text(r)
	st, err := a.state(r, t, name)
	if err != nil {
		return err
	}
	lang := "?lang=" + t.Lang()
	v := ledgerView{T: t, Name: name, PageURL: "/try-api/" + name + lang, StateURL: "/try-api/" + name + "/state" + lang,
		Limits: a.limits(t), State: st, Cheat: commands(t, baseURL(r), name),
		Console: newConsole(baseURL(r) + "/api/v1/ledgers/" + name + "/payments")}
	w.Header().Set("Cache-Control", "no-store")
	return a.Shell.Render(w, r, http.StatusOK, ledgerPage(a.pageFor(t, r, t.F("try.sandbox", name)+" · "+t.S("app.name")), v))
}

// State is GET /try-api/{ledger}/state: the tables alone, which the
// ledger's page polls.
func (a *TryAPI) State(w http.ResponseWriter, r *http.Request) error {
	name, err := pageLedger(r)
	if err != nil {
		return err
	}
	t := a.Shell.Text(r)
	st, err := a.state(r, t, name)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	return a.Shell.Render(w, r, http.StatusOK, stateTables(t, st))
}

func (a *TryAPI) pageFor(t page.Text, r *http.Request, title string) page.View {
	p := a.Shell.PageFor(t, r, title)
	p.Styles = append(p.Styles, a.Shell.Assets.URL("tryapi.css"))
	p.Scripts = append(p.Scripts, a.Shell.Assets.URL("tryapi.js"))
	return p
}

func (a *TryAPI) limits(t page.Text) string {
	return t.F("try.limits", page.Duration(a.hub.idle), a.hub.max, MaxDelay.String())
}

func pageLedger(r *http.Request) (string, error) {
	name := chi.URLParam(r, "ledger")
	if !ledgerName().MatchString(name) {
		return "", page.BadRequest("try.err.name", name)
	}
	return name, nil
}

// state is a ledger's tables, for reading.
func (a *TryAPI) state(r *http.Request, t page.Text, name string) (stateView, error) {
	l, err := a.ledger(r.Context(), name)
	if err != nil {
		return stateView{}, err
	}
	v := stateView{Active: l.Active, Log: logViews(t, a.logs.newest(name))}
	calls := map[string]int{}
	for _, c := range l.Charges {
		calls[c.Reference] = c.Calls
	}
	for _, k := range l.Keys {
		kv := keyView{Key: k.Key, Fingerprint: k.Fingerprint, Point: k.RecoveryPoint, Locked: k.Locked,
			LockedText: t.S("try.unlocked"), Response: "—"}
		if k.Locked {
			kv.LockedText = t.S("try.locked")
		}
		if k.ResponseStatus != nil {
			kv.Response = strconv.Itoa(*k.ResponseStatus)
		}
		v.Keys = append(v.Keys, kv)
	}
	for _, p := range l.Payments {
		v.Payments = append(v.Payments, paymentView{ID: p.ID, Account: p.Account, Amount: page.Money(p.Amount),
			Reference: p.Reference, Calls: strconv.Itoa(calls[p.Reference])})
	}
	for _, ac := range l.Accounts {
		v.Accounts = append(v.Accounts, accountView{ID: ac.ID, Balance: page.Money(ac.Balance)})
	}
	return v, nil
}

// suggestName is a fresh ledger name, so that two people who take the
// offered name do not share a ledger by accident.
func suggestName() string {
	const letters = "abcdefghijkmnpqrstuvwxyz23456789"
	b := make([]byte, 6)
	rand.Read(b)
	for i := range b {
		b[i] = letters[int(b[i])%len(letters)]
	}
	return "sbx-" + string(b)
}

// langQuery keeps an explicit ?lang= across the form's redirect.
func langQuery(r *http.Request) string {
	if l, explicit := page.PickLang(r); explicit {
		return "?lang=" + string(l)
	}
	return ""
}

// hostName is a Host header fit to show in a shell command.
var hostName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9.\-]+(:[0-9]{1,5})?$|^\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?$`)
})

// baseURL is this server's address as the reader reached it: the
// request's Host, or localhost:8080 when that is not a plain host name.
func baseURL(r *http.Request) string {
	scheme, host := "http", r.Host
	if r.TLS != nil {
		scheme = "https"
	}
	if !hostName().MatchString(host) {
		host = "localhost:8080"
	}
	return (&url.URL{Scheme: scheme, Host: host}).String()
}

// commands is the curl commands for ledger name on the server at base,
// in the order the page tells them.
func commands(t page.Text, base, name string) []cmdView {
	endpoint := base + "/api/v1/ledgers/" + name + "/payments"
	post := func(key, delay, body string) string {
		s := "curl -i -X POST " + endpoint + " \\\n  -H 'Content-Type: application/json' \\\n"
		if key != "" {
			s += "  -H 'Idempotency-Key: " + key + "' \\\n"
		}
		if delay != "" {
			s += "  -H 'Lab-Gateway-Delay: " + delay + "' \\\n"
		}
		return s + "  -d '" + body + "'"
	}
	const first, other = `{"account": "acc-1", "amount": 1000}`, `{"account": "acc-1", "amount": 5000}`
	const race = `{"account": "acc-2", "amount": 2500}`
	cmd := func(id string, shells ...shellView) cmdView {
		return cmdView{ID: id, Title: t.S("try.cmd." + id), Answer: t.S("try.cmd." + id + ".ans"), Shells: shells}
	}
	return []cmdView{
		cmd("first", shellView{Cmd: post("key-1", "", first)}),
		cmd("replay", shellView{Cmd: post("key-1", "", first)}),
		cmd("other", shellView{Cmd: post("key-1", "", other)}),
		cmd("nokey", shellView{Cmd: post("", "", first)}),
		cmd("race",
			shellView{Label: t.S("try.term1"), Cmd: post("key-2", "5s", race)},
			shellView{Label: t.S("try.term2"), Cmd: post("key-2", "", race)}),
		cmd("list", shellView{Cmd: "curl " + endpoint}),
	}
}
