package tryapi

import (
	"encoding/json"
	"regexp"
	"strings"
	"sync"
)

// The console on a ledger's page: a form that sends a payment from the
// page (static/tryapi.js, with fetch) and the same request as curl, Go and
// Python. The server writes the three for the form's first values, so
// that the page without JavaScript shows them; the script writes them
// again, the same way, as the fields change (a browser test checks that
// the two agree).

// consoleView is the form's first values and the request they make.
type consoleView struct {
	Endpoint                    string
	Key, Account, Amount, Delay string
	Snippets                    []snippetView
}

type snippetView struct{ ID, Label, Code string }

func newConsole(endpoint string) consoleView {
	c := consoleView{Endpoint: endpoint, Key: "key-1", Account: "acc-1", Amount: "1000"}
	c.Snippets = snippets(c)
	return c
}

// number is a JSON number, which consoleBody writes as it is; any other
// amount is written as a JSON string, for the server to refuse.
var number = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$`) })

// consoleBody is the body the form sends, spaced as the cheat-sheet's are,
// so that the same key and values are the same request byte for byte.
func consoleBody(account, amount string) string {
	amt := amount
	if !number().MatchString(amount) {
		amt = jsonString(amount)
	}
	return `{"account": ` + jsonString(account) + `, "amount": ` + amt + `}`
}

// jsonString is s as a JSON string, which is also a valid Go and Python
// string literal (HTML characters are not escaped, as JSON.stringify does
// not escape them).
func jsonString(s string) string {
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// shellQuote is s in single quotes for a POSIX shell.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// snippets is c's request as curl, Go (net/http) and Python (requests).
// static/tryapi.js's snippets must write exactly the same.
func snippets(c consoleView) []snippetView {
	body := consoleBody(c.Account, c.Amount)
	type header struct{ name, value string }
	hs := []header{{"Content-Type", "application/json"}}
	if c.Key != "" {
		hs = append(hs, header{"Idempotency-Key", c.Key})
	}
	if c.Delay != "" {
		hs = append(hs, header{"Lab-Gateway-Delay", c.Delay})
	}

	curl := "curl -i -X POST " + shellQuote(c.Endpoint) + " \\\n"
	for _, h := range hs {
		curl += "  -H " + shellQuote(h.name+": "+h.value) + " \\\n"
	}
	curl += "  -d " + shellQuote(body)

	goSrc := "package main\n\nimport (\n\t\"fmt\"\n\t\"io\"\n\t\"net/http\"\n\t\"strings\"\n)\n\nfunc main() {\n" +
		"\tbody := strings.NewReader(" + jsonString(body) + ")\n" +
		"\treq, err := http.NewRequest(\"POST\", " + jsonString(c.Endpoint) + ", body)\n" +
		"\tif err != nil {\n\t\tpanic(err)\n\t}\n"
	for _, h := range hs {
		goSrc += "\treq.Header.Set(" + jsonString(h.name) + ", " + jsonString(h.value) + ")\n"
	}
	goSrc += "\tresp, err := http.DefaultClient.Do(req)\n\tif err != nil {\n\t\tpanic(err)\n\t}\n\tdefer resp.Body.Close()\n" +
		"\tb, _ := io.ReadAll(resp.Body)\n" +
		"\tfmt.Println(resp.Status, \"Idempotent-Replayed:\", resp.Header.Get(\"Idempotent-Replayed\"))\n" +
		"\tfmt.Println(string(b))\n}"

	py := "import requests\n\nresp = requests.post(\n    " + jsonString(c.Endpoint) + ",\n    headers={\n"
	for _, h := range hs {
		py += "        " + jsonString(h.name) + ": " + jsonString(h.value) + ",\n"
	}
	py += "    },\n    data=" + jsonString(body) + ".encode(),\n)\n" +
		"print(resp.status_code, \"Idempotent-Replayed:\", resp.headers.get(\"Idempotent-Replayed\"))\nprint(resp.text)"

	return []snippetView{{"curl", "curl", curl}, {"go", "Go (net/http)", goSrc}, {"python", "Python (requests)", py}}
}
