package playground_test

import (
	"html"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/idempotency-lab/lab/link"
	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/webtest"
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
	h := webtest.NewServer(t)
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
			r := webtest.Get(t, h, target)
			if r.Status != 200 || !strings.Contains(r.Body, `id="goal-panel"`) {
				t.Fatalf("status %d, no goal panel\n%s", r.Status, webtest.Excerpt(r.Body))
			}
			if got := goalRows(r.Body); strings.Join(got, " ") != strings.Join(tc.rows, " ") {
				t.Errorf("rows %v, want %v", got, tc.rows)
			}
			for _, want := range tc.texts {
				if !strings.Contains(html.UnescapeString(r.Body), want) {
					t.Errorf("no %q in the panel", want)
				}
			}
			ru := webtest.Get(t, h, target+"&lang=ru")
			for _, want := range []string{"Цель и сейчас", "Вердикт", "Шаги"} {
				if tc.challenge == "inbox-quarantine" && want == "Вердикт" {
					want = "В карантине"
				}
				if !strings.Contains(ru.Body, want) {
					t.Errorf("ru: no %q\n%s", want, webtest.Excerpt(ru.Body))
				}
			}
		})
	}
	// The lab without a challenge has no panel.
	if r := webtest.Get(t, h, "/lab"); strings.Contains(r.Body, `id="goal-panel"`) {
		t.Error("a goal panel without a challenge")
	}
}

// TestSolutionAfterATry: "Show a solution" is not offered before a try
// (a step of one's own beyond the setup), and solution=1 shows nothing
// then; after a try the form notes the solution seen in the reader's
// progress (no solve) and comes back with solution=1, which shows the
// solution's steps and a link that plays them from the start.
func TestSolutionAfterATry(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	start := "/lab?challenge=setnx-loses"
	r := v.Get(start)
	if strings.Contains(r.Body, `id="ch-show-solution"`) || !strings.Contains(r.Body, `id="ch-sol-after"`) {
		t.Fatalf("a solution offered before a try\n%s", webtest.Excerpt(r.Body))
	}
	if r := v.Get(start + "&solution=1"); r.Status != 200 || strings.Contains(r.Body, `id="ch-solution"`) {
		t.Errorf("solution=1 before a try: status %d, shown %v", r.Status, strings.Contains(r.Body, `id="ch-solution"`))
	}
	// The form before a try is refused, with what to do.
	if r := v.Post("/challenges/setnx-loses/solution", url.Values{"challenge": {"setnx-loses"}}); r.Status != http.StatusConflict || !strings.Contains(r.Body, "Make a try first") {
		t.Errorf("showing before a try: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	loc := v.StepTo(start, url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	r = v.Get(loc)
	if !strings.Contains(r.Body, `id="ch-show-solution"`) || strings.Contains(r.Body, `id="ch-solution"`) {
		t.Fatalf("after a try: no offer, or the solution already shown\n%s", webtest.Excerpt(r.Body))
	}
	u, _ := url.Parse(loc)
	form := u.Query()
	form.Set("step", "1")
	shown := v.Post("/challenges/setnx-loses/solution", form)
	if shown.Status != http.StatusSeeOther {
		t.Fatalf("show: %d\n%s", shown.Status, webtest.Excerpt(shown.Body))
	}
	back := shown.Header.Get("Location")
	if !strings.Contains(back, "challenge=setnx-loses&solution=1") {
		t.Fatalf("back to %q", back)
	}
	r = v.Get(back)
	c, _ := practice.FindChallenge("setnx-loses")
	if !strings.Contains(r.Body, `id="ch-solution"`) || !strings.Contains(html.UnescapeString(r.Body), "deliver crash=before-effect") || !strings.Contains(r.Body, `id="ch-hide-solution"`) {
		t.Fatalf("the solution is not shown\n%s", webtest.Excerpt(r.Body))
	}
	// Its play link opens the solution at the setup's end, to step through.
	want := link.Lab{Script: c.Solution, Challenge: c.ID, Solution: true, Step: 0, HasStep: true}.String()
	if !strings.Contains(r.Body, `href="`+html.EscapeString(want)+`"`) {
		t.Errorf("no play link %q", want)
	}
	play := v.Get(want)
	if play.Status != 200 || !strings.Contains(play.Body, `data-status="open"`) {
		t.Errorf("the play link: %d", play.Status)
	}
	end := v.Get(link.Lab{Script: c.Solution, Challenge: c.ID, Solution: true}.String())
	if !strings.Contains(end.Body, `data-status="solved"`) || strings.Contains(strings.Join(goalRows(end.Body), " "), "=false") {
		t.Errorf("the solution's end is not solved: %v", goalRows(end.Body))
	}
	list := v.Get("/challenges")
	if !strings.Contains(list.Body, `data-seen="true"`) || !strings.Contains(list.Body, "Solution seen") {
		t.Errorf("the list does not say the solution was seen\n%s", webtest.Excerpt(list.Body))
	}
	if strings.Contains(list.Body, `data-challenge="setnx-loses" data-solved="true"`) {
		t.Error("seeing the solution recorded a solve")
	}
	if ru := v.Get(back + "&lang=ru"); !strings.Contains(ru.Body, "Решение (шагов: 2)") || !strings.Contains(ru.Body, "Пройти по шагам") {
		t.Errorf("ru: the solution's words\n%s", webtest.Excerpt(ru.Body))
	}
}

// TestSharedChallenge: a goal: header makes any script a challenge that
// only its address reaches: the goal panel, judged like a listed one,
// nothing listed, nothing saved; a bad goal line is a 400 naming the
// problem in both languages.
func TestSharedChallenge(t *testing.T) {
	h, _ := webtest.PracticeServer(t)
	v := webtest.NewVisitor(t, h)
	goal := "goal: handler=setnx verdict=lost steps<=3\n"
	pub := "publish pay-1 amount=10000\n"
	open := v.Get("/lab?s=" + link.Pack(goal))
	if open.Status != 200 || !strings.Contains(open.Body, `data-shared`) || !strings.Contains(open.Body, `id="goal-panel"`) || !strings.Contains(open.Body, `data-status="open"`) {
		t.Fatalf("a shared goal's lab: %d\n%s", open.Status, webtest.Excerpt(open.Body))
	}
	if !strings.Contains(open.Body, "goal: handler=setnx verdict=lost steps&lt;=3") || strings.Contains(open.Body, `id="ch-show-solution"`) {
		t.Errorf("the goal line, or a solution offered\n%s", webtest.Excerpt(open.Body))
	}
	if got := cardNames(open.Body); len(got) == 0 || got[0] != "setnx" {
		t.Errorf("cards %v, want setnx first", got)
	}
	// Steps built with the controls keep the goal (it is in the script).
	loc := v.StepTo("/lab?s="+link.Pack(goal), url.Values{"verb": {"publish"}, "op": {"pay-1"}, "amount": {"10000"}})
	loc = v.StepTo(loc, url.Values{"verb": {"deliver"}, "crash": {"before-effect"}})
	won := v.Get(loc)
	if !strings.Contains(won.Body, `data-status="solved"`) || !strings.Contains(won.Body, "A shared challenge is not saved") || strings.Contains(won.Body, `id="ch-save"`) {
		t.Fatalf("the shared goal reached:\n%s", webtest.Excerpt(won.Body))
	}
	if strings.Join(goalRows(won.Body), " ") != "Verdict=true Steps=true" {
		t.Errorf("rows %v", goalRows(won.Body))
	}
	// The link to share is the goal without the steps.
	share := link.Lab{Script: goal}.String()
	if !strings.Contains(won.Body, `id="ch-share" href="`+html.EscapeString(share)+`"`) {
		t.Errorf("no share link %q", share)
	}
	if v.Profile() != "" {
		t.Error("a shared challenge minted a profile")
	}
	if list := v.Get("/challenges"); strings.Contains(list.Body, "setnx verdict=lost steps") {
		t.Error("the shared challenge is listed")
	}
	if ru := v.Get("/lab?lang=ru&s=" + link.Pack(goal+pub)); !strings.Contains(ru.Body, "Собственное задание") || !strings.Contains(ru.Body, "Цель и сейчас") {
		t.Errorf("ru\n%s", webtest.Excerpt(ru.Body))
	}
	// An API goal on a script of requests.
	if r := v.Get("/lab?s=" + link.Pack("goal: handler=api-naive verdict=duplicate\nrequest pay-1 amount=100\n")); r.Status != 200 || !strings.Contains(r.Body, `id="goal-panel"`) {
		t.Errorf("an API goal: %d\n%s", r.Status, webtest.Excerpt(r.Body))
	}
	// Its first request undone, the script of no steps is either side's
	// start: the lab stays, the goal waits for a request.
	if r := v.Get("/lab?s=" + link.Pack("goal: handler=api-naive verdict=duplicate\n")); r.Status != 200 || !strings.Contains(r.Body, `data-shared`) {
		t.Errorf("an API goal on the script of no steps: %d\n%s", r.Status, webtest.Excerpt(r.Body))
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
				r := v.Get("/lab?" + tc.query + "&lang=" + lang)
				if r.Status != http.StatusBadRequest || !strings.Contains(html.UnescapeString(r.Body), want) {
					t.Errorf("%s: status %d, want 400 with %q\n%s", lang, r.Status, want, webtest.Excerpt(r.Body))
				}
			}
		})
	}
}
