package practicepage_test

import (
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/emulation"
	"github.com/chromedp/chromedp"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/web/webtest"
)

// answered reads a bar's data-answered on the overview.
func answered(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := strconv.Atoi(webtest.Attr(t, ctx, sel, "data-answered"))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestBrowserPractice is a learner's session: a multiple-choice question,
// a predict exercise answered wrong and then right, a reload, and the
// progress still there on /practice. With JavaScript htmx swaps only the
// answer area; without it every form posts and redirects.
func TestBrowserPractice(t *testing.T) {
	b, clock := webtest.NewPracticeBrowser(t)
	choice := webtest.FindQuestion(t, practice.KindChoice, func(q practice.Question) bool { return len(q.Correct()) == 1 })
	predict := webtest.FindQuestion(t, practice.KindPredict, func(q practice.Question) bool {
		return q.Topic != choice.Topic && webtest.EngineResult(t, q).Settled > 0
	})
	res := webtest.EngineResult(t, predict)
	rightBalance := practice.FormatMoney(res.Settled)
	wrongVerdict := string(webtest.OtherVerdict(res.Verdict))

	for _, js := range []bool{true, false} {
		t.Run(webtest.Mode(js), func(t *testing.T) {
			ctx := b.Tab(true, js) // a browser of its own: no profile yet
			webtest.Do(t, ctx, "open the overview", chromedp.Navigate(b.Base+"/practice?lang=en"), chromedp.WaitVisible(chromedp.ID("overall")))
			if n := answered(t, ctx, "#overall"); n != 0 {
				t.Fatalf("a new browser has %d%% answered", n)
			}

			// Multiple choice, from its topic's list.
			webtest.Do(t, ctx, "open the topic", chromedp.Click(chromedp.CSS(`.pr-topic[data-topic="`+choice.Topic+`"] a`)),
				chromedp.WaitVisible(chromedp.ID("items")))
			webtest.Do(t, ctx, "open the question", chromedp.Navigate(b.Base+"/practice/q/"+choice.ID+"?topic="+choice.Topic),
				chromedp.WaitVisible(chromedp.ID("answer-form")))
			if js {
				webtest.MarkPage(t, ctx)
			}
			webtest.Do(t, ctx, "pick the right option", chromedp.Click(chromedp.ID("option-"+choice.Correct()[0])),
				chromedp.Click(chromedp.ID("submit-answer")), webtest.WaitResult("right"))
			if js && !webtest.PageKept(t, ctx) {
				t.Error("answering reloaded the page: htmx should swap the answer area")
			}
			if loc := webtest.Location(t, ctx); !strings.Contains(loc, "/practice/q/"+choice.ID+"/result?option=") {
				t.Errorf("address after answering = %q, want the result's address", loc)
			}
			if why := webtest.TextOfSel(t, ctx, ".pr-option-results"); !strings.Contains(why, choice.Options[0].Why.EN) {
				t.Errorf("the result lacks the explanation of option a: %q", why)
			}
			if js {
				webtest.ScreenshotWhen(t, ctx, "practice-choice-result", 1440, 1000, false, "#result")
			}

			// A prediction: wrong first, then right on the retry form.
			webtest.Do(t, ctx, "open the exercise", chromedp.Navigate(b.Base+"/practice/q/"+predict.ID),
				chromedp.WaitVisible(chromedp.CSS("pre.pr-script")))
			if js {
				webtest.MarkPage(t, ctx)
				webtest.ScreenshotWhen(t, ctx, "practice-predict-desktop", 1440, 1000, false, "#answer-form")
				webtest.ScreenshotWhen(t, ctx, "practice-predict-phone", 360, 780, true, "#answer-form")
				webtest.Do(t, ctx, "back to desktop", chromedp.EmulateViewport(1440, 1000))
			}
			webtest.Do(t, ctx, "predict wrong",
				chromedp.SetValue(chromedp.ID("answer-form-balance"), practice.FormatMoney(res.Settled+100)),
				chromedp.SetValue(chromedp.ID("answer-form-verdict"), wrongVerdict),
				chromedp.Click(chromedp.ID("answer-form-submit")), webtest.WaitResult("wrong"),
				chromedp.WaitVisible(chromedp.ID("retry-form")))
			if got := webtest.Attr(t, ctx, "[data-engine-verdict]", "data-engine-verdict"); got != string(res.Verdict) {
				t.Errorf("the result shows the engine's verdict %q, want %q", got, res.Verdict)
			}
			if href := webtest.Attr(t, ctx, "#open-in-lab", "href"); href != predict.LabURL() {
				t.Errorf("open in the lab = %q, want %q", href, predict.LabURL())
			}
			if js {
				webtest.ScreenshotWhen(t, ctx, "practice-predict-wrong-desktop", 1440, 1000, false, "#retry-form")
				webtest.ScreenshotWhen(t, ctx, "practice-predict-wrong-phone", 360, 780, true, "#retry-form")
				webtest.Do(t, ctx, "back to desktop", chromedp.EmulateViewport(1440, 1000))
			}
			clock.Advance(time.Minute) // the retry comes after the miss
			webtest.Do(t, ctx, "predict again, right",
				// Typed as a person types money: "200,00 ₽" is 200.00.
				chromedp.SetValue(chromedp.ID("retry-form-balance"), strings.Replace(rightBalance, ".", ",", 1)+" ₽"),
				chromedp.SetValue(chromedp.ID("retry-form-verdict"), string(res.Verdict)),
				chromedp.Click(chromedp.ID("retry-form-submit")), webtest.WaitResult("right"))
			if js && !webtest.PageKept(t, ctx) {
				t.Error("the retry reloaded the page")
			}

			// A reload shows the same result and records nothing.
			webtest.Do(t, ctx, "reload", chromedp.Reload(), webtest.WaitResult("right"))
			webtest.Do(t, ctx, "back to the overview", chromedp.Navigate(b.Base+"/practice"), chromedp.WaitVisible(chromedp.ID("overall")))
			for _, topic := range []string{choice.Topic, predict.Topic} {
				if n := answered(t, ctx, `.pr-topic[data-topic="`+topic+`"]`); n == 0 {
					t.Errorf("topic %s shows no progress after the answers", topic)
				}
			}
			if n := answered(t, ctx, "#overall"); n == 0 {
				t.Error("the overall bar shows no progress")
			}
			webtest.Do(t, ctx, "reload the overview", chromedp.Reload(), chromedp.WaitVisible(chromedp.ID("export")))
			// The prediction missed at first stays in review until it is
			// answered right on a later day, though the retry was right.
			if status := webtest.TextOfSel(t, ctx, "#review-status"); !strings.Contains(status, "Due for review now: 1.") {
				t.Errorf("the review status = %q: the missed prediction should stay due", status)
			}
			if js {
				webtest.ScreenshotWhen(t, ctx, "practice-desktop", 1440, 1000, false, "#overall")
				webtest.ScreenshotWhen(t, ctx, "practice-phone", 360, 780, true, "#overall")
				webtest.Do(t, ctx, "dark theme", chromedp.EmulateViewport(1440, 1000), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
					_, err := cdp.Call(ctx, t, emulation.SetEmulatedMedia, emulation.SetEmulatedMediaParams{
						Features: []*emulation.MediaFeature{{Name: "prefers-color-scheme", Value: "dark"}, {Name: "prefers-reduced-motion", Value: "reduce"}}})
					return err
				}))
				webtest.ScreenshotWhen(t, ctx, "practice-desktop-dark", 1440, 1000, false, "#overall")
			}
			b.NoConsoleErrors()
		})
	}
}

// TestBrowserPracticeOpenAndRussian answers an open question in Russian:
// one's own words, the model answer beside them, the points ticked.
func TestBrowserPracticeOpenAndRussian(t *testing.T) {
	b, _ := webtest.NewPracticeBrowser(t)
	open := webtest.FindQuestion(t, practice.KindOpen, nil)
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "open the question", chromedp.Navigate(b.Base+"/practice/q/"+open.ID+"?lang=ru"),
		chromedp.WaitVisible(chromedp.ID("mine")))
	webtest.MarkPage(t, ctx)
	webtest.Do(t, ctx, "write and compare",
		chromedp.SendKeys(chromedp.ID("mine"), "Ключ операции, UNIQUE и inbox в одной транзакции"),
		chromedp.Click(chromedp.ID("submit-answer")), chromedp.WaitVisible(chromedp.ID("points-form")))
	if own := webtest.TextOfSel(t, ctx, ".pr-own-text"); !strings.Contains(own, "inbox в одной транзакции") {
		t.Errorf("one's own answer is not shown beside the model: %q", own)
	}
	webtest.ScreenshotWhen(t, ctx, "practice-open-compare-ru", 1440, 1000, false, "#points-form")
	webtest.Do(t, ctx, "tick two points", chromedp.Click(chromedp.ID("point-0")), chromedp.Click(chromedp.ID("point-1")),
		chromedp.Click(chromedp.ID("submit-points")), chromedp.WaitVisible(chromedp.ID("result")))
	if !webtest.PageKept(t, ctx) {
		t.Error("the comparison reloaded the page")
	}
	if h := webtest.TextOfSel(t, ctx, ".pr-verdict"); !strings.Contains(h, "Вы раскрыли 2 из") {
		t.Errorf("headline %q", h)
	}
	webtest.ScreenshotWhen(t, ctx, "practice-open-result-ru", 1440, 1000, false, "#result")
	webtest.Do(t, ctx, "the topic in Russian", chromedp.Navigate(b.Base+"/practice?topic="+open.Topic),
		chromedp.WaitVisible(chromedp.ID("items")))
	webtest.ScreenshotWhen(t, ctx, "practice-topic-ru", 1440, 1000, false, "#items")
	webtest.Do(t, ctx, "an interview run", chromedp.Navigate(b.Base+"/practice/interview?seed=42&lang=en"),
		chromedp.WaitVisible(chromedp.ID("items")))
	webtest.ScreenshotWhen(t, ctx, "practice-interview", 1440, 1000, false, "#items")
	webtest.ScreenshotWhen(t, ctx, "practice-interview-phone", 360, 780, true, "#items")
	b.NoConsoleErrors()
}

// TestBrowserInterviewCountdown: with JavaScript, an interview run counts
// down the minutes left beside its deadline, under the page's CSP.
func TestBrowserInterviewCountdown(t *testing.T) {
	b, clock := webtest.NewPracticeBrowser(t)
	clock.Set(time.Now()) // the browser's clock is the real one
	ctx := b.Tab(true, true)
	webtest.Do(t, ctx, "start a run", chromedp.Navigate(b.Base+"/practice/interview?lang=en"),
		chromedp.WaitVisible(chromedp.ID("deadline")))
	if d := webtest.TextOfSel(t, ctx, "#deadline"); !strings.HasPrefix(d, "Ends at ") {
		t.Errorf("deadline %q", d)
	}
	first := webtest.TextOfSel(t, ctx, "#countdown")
	if !regexp.MustCompile(`^1[45]:\d\d left$`).MatchString(first) {
		t.Fatalf("countdown %q, want about 15:00 left", first)
	}
	time.Sleep(1500 * time.Millisecond)
	if again := webtest.TextOfSel(t, ctx, "#countdown"); again == first {
		t.Errorf("the countdown does not move: %q", again)
	}
	b.NoConsoleErrors()
}
