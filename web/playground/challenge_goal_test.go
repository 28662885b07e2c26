package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
)

// goalRows are the goal panel's rows as "label=met" (true or false), in
// order.
func goalRows(body string) []string {
	var out []string
	for _, part := range strings.Split(body, `<tr class="goal-item `)[1:] {
		met := strings.Contains(part[:strings.Index(part, ">")], `data-met="true"`)
		label := part[strings.Index(part, `<th scope="row">`)+len(`<th scope="row">`):]
		label = html.UnescapeString(label[:strings.Index(label, "</th>")])
		if met {
			out = append(out, label+"=true")
		} else {
			out = append(out, label+"=false")
		}
	}
	return out
}

// TestGoalPanel: a challenge's lab page sets its goal beside the run's
// state, each item marked met or not yet, in both languages; the
// verdict turns met with the solution's steps, the step limit unmet past
// it, and a forbidden step is named with its step.
func TestGoalPanel(t *testing.T) {
	h := newTestServer(t)
	pub := "publish pay-1 amount=10000\n"
	for _, tc := range []struct {
		name, challenge, script string
		rows                    []string
		texts                   []string
	}{
		{"nothing yet", "naive-twice", "", []string{"Verdict=false", "Steps=true"}, []string{"= DUPLICATE", "≤ 2", "not yet"}},
		{"solved", "naive-twice", pub + "deliver crash=before-ack\n", []string{"Verdict=true", "Steps=true"}, []string{"met"}},
		{"too long", "naive-twice", pub + "deliver crash=before-ack\nredeliver\n", []string{"Verdict=true", "Steps=false"}, nil},
		{"a measure", "inbox-quarantine", pub, []string{"Quarantined=false", "Steps=true"}, []string{"≥ 1"}},
		{"a forbidden crash", "check-then-insert-race", pub + "deliver crash=before-ack\n", []string{"Verdict=false", "Steps=true", "Without crash=false"}, []string{"at step 2"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := "/lab?challenge=" + tc.challenge
			if tc.script != "" {
				target += "&s=" + link.Pack(tc.script)
			}
			r := get(t, h, target)
			if r.status != 200 || !strings.Contains(r.body, `id="goal-panel"`) {
				t.Fatalf("status %d, no goal panel\n%s", r.status, excerpt(r.body))
			}
			if got := goalRows(r.body); strings.Join(got, " ") != strings.Join(tc.rows, " ") {
				t.Errorf("rows %v, want %v", got, tc.rows)
			}
			for _, want := range tc.texts {
				if !strings.Contains(html.UnescapeString(r.body), want) {
					t.Errorf("no %q in the panel", want)
				}
			}
			ru := get(t, h, target+"&lang=ru")
			for _, want := range []string{"Цель и сейчас", "Вердикт", "Шаги"} {
				if tc.challenge == "inbox-quarantine" && want == "Вердикт" {
					want = "В карантине"
				}
				if !strings.Contains(ru.body, want) {
					t.Errorf("ru: no %q\n%s", want, excerpt(ru.body))
				}
			}
		})
	}
	// The lab without a challenge has no panel.
	if r := get(t, h, "/lab"); strings.Contains(r.body, `id="goal-panel"`) {
		t.Error("a goal panel without a challenge")
	}
}

// TestSolutionAfterATry: "Show a solution" is not offered before a try
// (a step of one's own beyond the setup), and solution=1 shows nothing
// then; after a try the form notes the solution seen in the reader's
// progress (no solve) and comes back with solution=1, which shows the
// solution's steps and a link that plays them from the start.
func TestSolutionAfterATry(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	start := "/lab?challenge=setnx-loses"
	r := v.get(start)
	if strings.Contains(r.body, `id="ch-show-solution"`) || !strings.Contains(r.body, `id="ch-sol-after"`) {
		t.Fatalf("a solution offered before a try\n%s", excerpt(r.body))
	}
	if r := v.get(start + "&solution=1"); r.status != 200 || strings.Contains(r.body, `id="ch-solution"`) {
		t.Errorf("solution=1 before a try: status %d, shown %v", r.status, strings.Contains(r.body, `id="ch-solution"`))
	}
	// The form before a try is refused, with what to do.
	if r := v.post("/challenges/setnx-loses/solution", url.Values{"challenge": {"setnx-loses"}}); r.status != http.StatusConflict || !strings.Contains(r.body, "Make a try first") {
		t.Errorf("showing before a try: %d\n%s", r.status, excerpt(r.body))
	}
	loc := v.stepTo(start, url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	r = v.get(loc)
	if !strings.Contains(r.body, `id="ch-show-solution"`) || strings.Contains(r.body, `id="ch-solution"`) {
		t.Fatalf("after a try: no offer, or the solution already shown\n%s", excerpt(r.body))
	}
	u, _ := url.Parse(loc)
	form := u.Query()
	form.Set("step", "1")
	shown := v.post("/challenges/setnx-loses/solution", form)
	if shown.status != http.StatusSeeOther {
		t.Fatalf("show: %d\n%s", shown.status, excerpt(shown.body))
	}
	back := shown.header.Get("Location")
	if !strings.Contains(back, "challenge=setnx-loses&solution=1") {
		t.Fatalf("back to %q", back)
	}
	r = v.get(back)
	c, _ := practice.FindChallenge("setnx-loses")
	if !strings.Contains(r.body, `id="ch-solution"`) || !strings.Contains(html.UnescapeString(r.body), "deliver crash=before-effect") || !strings.Contains(r.body, `id="ch-hide-solution"`) {
		t.Fatalf("the solution is not shown\n%s", excerpt(r.body))
	}
	// Its play link opens the solution at the setup's end, to step through.
	want := link.Lab{Script: c.Solution, Challenge: c.ID, Solution: true, Step: 0, HasStep: true}.String()
	if !strings.Contains(r.body, `href="`+html.EscapeString(want)+`"`) {
		t.Errorf("no play link %q", want)
	}
	play := v.get(want)
	if play.status != 200 || !strings.Contains(play.body, `data-status="open"`) {
		t.Errorf("the play link: %d", play.status)
	}
	end := v.get(link.Lab{Script: c.Solution, Challenge: c.ID, Solution: true}.String())
	if !strings.Contains(end.body, `data-status="solved"`) || strings.Contains(strings.Join(goalRows(end.body), " "), "=false") {
		t.Errorf("the solution's end is not solved: %v", goalRows(end.body))
	}
	list := v.get("/challenges")
	if !strings.Contains(list.body, `data-seen="true"`) || !strings.Contains(list.body, "Solution seen") {
		t.Errorf("the list does not say the solution was seen\n%s", excerpt(list.body))
	}
	if strings.Contains(list.body, `data-challenge="setnx-loses" data-solved="true"`) {
		t.Error("seeing the solution recorded a solve")
	}
	if ru := v.get(back + "&lang=ru"); !strings.Contains(ru.body, "Решение (шагов: 2)") || !strings.Contains(ru.body, "Пройти по шагам") {
		t.Errorf("ru: the solution's words\n%s", excerpt(ru.body))
	}
}

// TestSharedChallenge: a goal: header makes any script a challenge that
// only its address reaches: the goal panel, judged like a listed one,
// nothing listed, nothing saved; a bad goal line is a 400 naming the
// problem in both languages.
func TestSharedChallenge(t *testing.T) {
	h, _ := practiceServer(t)
	v := newVisitor(t, h)
	goal := "goal: handler=setnx verdict=lost steps<=3\n"
	pub := "publish pay-1 amount=10000\n"
	open := v.get("/lab?s=" + link.Pack(goal))
	if open.status != 200 || !strings.Contains(open.body, `data-shared`) || !strings.Contains(open.body, `id="goal-panel"`) || !strings.Contains(open.body, `data-status="open"`) {
		t.Fatalf("a shared goal's lab: %d\n%s", open.status, excerpt(open.body))
	}
	if !strings.Contains(open.body, "goal: handler=setnx verdict=lost steps&lt;=3") || strings.Contains(open.body, `id="ch-show-solution"`) {
		t.Errorf("the goal line, or a solution offered\n%s", excerpt(open.body))
	}
	if got := cardNames(open.body); len(got) == 0 || got[0] != "setnx" {
		t.Errorf("cards %v, want setnx first", got)
	}
	// Steps built with the controls keep the goal (it is in the script).
	loc := v.stepTo("/lab?s="+link.Pack(goal), url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	loc = v.stepTo(loc, url.Values{"verb": {"deliver"}, "crash": {"before-effect"}})
	won := v.get(loc)
	if !strings.Contains(won.body, `data-status="solved"`) || !strings.Contains(won.body, "A shared challenge is not saved") || strings.Contains(won.body, `id="ch-save"`) {
		t.Fatalf("the shared goal reached:\n%s", excerpt(won.body))
	}
	if strings.Join(goalRows(won.body), " ") != "Verdict=true Steps=true" {
		t.Errorf("rows %v", goalRows(won.body))
	}
	// The link to share is the goal without the steps.
	share := link.Lab{Script: goal}.String()
	if !strings.Contains(won.body, `id="ch-share" href="`+html.EscapeString(share)+`"`) {
		t.Errorf("no share link %q", share)
	}
	if v.profile() != "" {
		t.Error("a shared challenge minted a profile")
	}
	if list := v.get("/challenges"); strings.Contains(list.body, "setnx verdict=lost steps") {
		t.Error("the shared challenge is listed")
	}
	if ru := v.get("/lab?lang=ru&s=" + link.Pack(goal+pub)); !strings.Contains(ru.body, "Собственное задание") || !strings.Contains(ru.body, "Цель и сейчас") {
		t.Errorf("ru\n%s", excerpt(ru.body))
	}
	// An API goal on a script of requests.
	if r := v.get("/lab?s=" + link.Pack("goal: handler=api-naive verdict=duplicate\nrequest pay-1 amount=100\n")); r.status != 200 || !strings.Contains(r.body, `id="goal-panel"`) {
		t.Errorf("an API goal: %d\n%s", r.status, excerpt(r.body))
	}
	// Its first request undone, the script of no steps is either side's
	// start: the lab stays, the goal waits for a request.
	if r := v.get("/lab?s=" + link.Pack("goal: handler=api-naive verdict=duplicate\n")); r.status != 200 || !strings.Contains(r.body, `data-shared`) {
		t.Errorf("an API goal on the script of no steps: %d\n%s", r.status, excerpt(r.body))
	}

	for _, tc := range []struct {
		name, query string
		en, ru      string
	}{
		{"unknown verdict", "s=" + link.Pack("goal: handler=naive verdict=twice\n"+pub), "line 1: goal: verdict=twice: unknown verdict; valid verdicts: ok, duplicate", "строка 1: goal: verdict=twice: нет такого вердикта"},
		{"unknown term", "s=" + link.Pack("title: t\ngoal: handler=naive colour=red\n"), `line 2: goal: unknown term "colour"`, `строка 2: goal: неизвестное условие "colour"`},
		{"no condition", "s=" + link.Pack("goal: handler=naive steps<=2\n"), "no condition on the outcome", "нет условия на исход"},
		{"an empty goal", "s=" + link.Pack("goal:\n"), "goal: needs a goal line", "нужна строка цели"},
		{"an API handler on messages", "s=" + link.Pack("goal: handler=api-naive verdict=duplicate\n"+pub), "handler=api-naive serves API requests", "обслуживает запросы к API"},
		{"a plain script", "script=" + url.QueryEscape("goal: handler=magic verdict=ok\n"), "handler=magic: unknown handler", "нет такого обработчика"},
		{"a goal and a challenge", "challenge=naive-twice&s=" + link.Pack("goal: handler=naive verdict=ok\n"), "one goal at a time", "цель может быть только одна"},
		{"solution= in words", "challenge=naive-twice&solution=yes", `solution="yes": write solution=1`, "пишите solution=1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for lang, want := range map[string]string{"en": tc.en, "ru": tc.ru} {
				r := v.get("/lab?" + tc.query + "&lang=" + lang)
				if r.status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(r.body), want) {
					t.Errorf("%s: status %d, want 400 with %q\n%s", lang, r.status, want, excerpt(r.body))
				}
			}
		})
	}
}
