package room

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func answer(n int64) *int64 { return &n }

var verdicts = []string{"ok", "duplicate", "lost", "poison", "silent-conflict"}

// TestQuestionCheck: every kind, and every way a question can be wrong.
func TestQuestionCheck(t *testing.T) {
	six := []string{"a", "b", "c", "d", "e", "f"}
	for _, tc := range []struct {
		name    string
		q       Question
		problem string // "" for a good question
	}{
		{"balance", Question{Kind: KindBalance, Handler: "naive", Step: 2}, ""},
		{"verdict", Question{Kind: KindVerdict, Handler: "naive", Step: 2, Options: verdicts, Answer: answer(1)}, ""},
		{"choice", Question{Kind: KindChoice, Text: "Why?", Options: []string{"yes", "no"}}, ""},
		{"choice with answer", Question{Kind: KindChoice, Text: "Why?", Options: six, Answer: answer(5)}, ""},
		{"choice at the limits", Question{Kind: KindChoice, Text: strings.Repeat("щ", MaxQuestion), Options: []string{strings.Repeat("ж", MaxOption), "b"}}, ""},
		{"no kind", Question{Handler: "naive"}, "kind"},
		{"unknown kind", Question{Kind: "essay", Handler: "naive"}, "kind"},
		{"balance without handler", Question{Kind: KindBalance}, "handler"},
		{"balance with options", Question{Kind: KindBalance, Handler: "naive", Options: []string{"a", "b"}}, "options-many"},
		{"verdict without handler", Question{Kind: KindVerdict, Options: verdicts}, "handler"},
		{"empty question", Question{Kind: KindChoice, Text: "  ", Options: []string{"a", "b"}}, "text-empty"},
		{"long question", Question{Kind: KindChoice, Text: strings.Repeat("q", MaxQuestion+1), Options: []string{"a", "b"}}, "text-long"},
		{"one option", Question{Kind: KindChoice, Text: "q", Options: []string{"a"}}, "options-few"},
		{"seven options", Question{Kind: KindChoice, Text: "q", Options: append(six, "g")}, "options-many"},
		{"empty option", Question{Kind: KindChoice, Text: "q", Options: []string{"a", " ", "c"}}, "option-empty"},
		{"long option", Question{Kind: KindChoice, Text: "q", Options: []string{"a", strings.Repeat("o", MaxOption+1)}}, "option-long"},
		{"answer past the options", Question{Kind: KindChoice, Text: "q", Options: []string{"a", "b"}, Answer: answer(2)}, "answer"},
		{"negative answer", Question{Kind: KindVerdict, Handler: "naive", Options: verdicts, Answer: answer(-1)}, "answer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.q.Check()
			var qe *QuestionError
			switch {
			case tc.problem == "" && err != nil:
				t.Fatalf("err = %v, want none", err)
			case tc.problem != "" && (!errors.As(err, &qe) || qe.Problem != tc.problem):
				t.Fatalf("err = %v, want the problem %q", err, tc.problem)
			}
		})
	}
}

// TestPollKinds: for each kind, the votes a poll takes and refuses, the
// tally, and the answer hidden from students until the reveal.
func TestPollKinds(t *testing.T) {
	for _, tc := range []struct {
		name     string
		q        Question
		votes    map[string]int64 // in order of students s1, s2…; a second vote of s1 replaces
		bad      []int64          // refused with ErrBadAnswer
		want     string           // the distribution
		revealBy string           // "step" or "reveal"
	}{
		{"balance", Question{Kind: KindBalance, Handler: "naive", Step: 2, Answer: answer(200)},
			map[string]int64{"s1": 200, "s2": 100, "s3": 200}, nil, "[{100 1} {200 2}]", "step"},
		{"verdict", Question{Kind: KindVerdict, Handler: "naive", Step: 2, Options: verdicts, Answer: answer(1)},
			map[string]int64{"s1": 1, "s2": 0, "s3": 1}, []int64{-1, 5, 99}, "[{0 1} {1 2} {2 0} {3 0} {4 0}]", "step"},
		{"choice", Question{Kind: KindChoice, Step: 1, Text: "Which key?", Options: []string{"message id", "payload hash", "offset"}, Answer: answer(0)},
			map[string]int64{"s1": 0, "s2": 2}, []int64{3, -2}, "[{0 1} {1 0} {2 1}]", "reveal"},
		{"choice with no right answer", Question{Kind: KindChoice, Text: "Did you like it?", Options: []string{"yes", "no"}},
			map[string]int64{"s1": 1}, []int64{2}, "[{0 0} {1 1}]", "reveal"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h, _ := newTestHub(t, Config{})
			code, secret := mustCreate(t, h)
			st, err := h.Ask(code, secret, tc.q)
			if err != nil {
				t.Fatal(err)
			}
			id := st.Poll.ID
			if st.Poll.Kind != tc.q.Kind || len(st.Poll.Options) != len(tc.q.Options) {
				t.Fatalf("poll %+v", st.Poll)
			}
			for s, v := range tc.votes {
				if err := h.Vote(code, s, id, v); err != nil {
					t.Fatalf("vote %s=%d: %v", s, v, err)
				}
			}
			for _, v := range tc.bad {
				if err := h.Vote(code, "s9", id, v); !errors.Is(err, ErrBadAnswer) {
					t.Errorf("vote %d: err = %v, want ErrBadAnswer", v, err)
				}
			}
			student, _ := h.State(code, false)
			if student.Poll.Counts != nil || student.Poll.Answer != nil || student.Poll.Votes != len(tc.votes) {
				t.Fatalf("student's poll before the reveal %+v: want the number of votes, no tally, no answer", student.Poll)
			}
			teacher, _ := h.State(code, true)
			if got := fmt.Sprint(teacher.Poll.Counts); got != tc.want {
				t.Errorf("the instructor's tally %s, want %s", got, tc.want)
			}
			if (teacher.Poll.Answer == nil) != (tc.q.Answer == nil) {
				t.Errorf("the instructor's answer %v, want %v", teacher.Poll.Answer, tc.q.Answer)
			}
			// Stepping reveals a prediction, never a choice question.
			h.Update(code, secret, "", 2, nil)
			if st, _ := h.State(code, false); st.Poll.Revealed != (tc.revealBy == "step") {
				t.Fatalf("after a step: revealed = %v", st.Poll.Revealed)
			}
			if _, err := h.Reveal(code, secret); err != nil {
				t.Fatal(err)
			}
			after, _ := h.State(code, false)
			if !after.Poll.Revealed || fmt.Sprint(after.Poll.Counts) != tc.want || (after.Poll.Answer == nil) != (tc.q.Answer == nil) {
				t.Errorf("the student's poll after the reveal %+v", after.Poll)
			}
			if err := h.Vote(code, "s1", id, 0); !errors.Is(err, ErrNoPoll) {
				t.Errorf("a vote after the reveal: err = %v, want ErrNoPoll", err)
			}
			res, dropped, err := h.Results(code, secret)
			if err != nil || dropped != 0 || len(res) != 1 {
				t.Fatalf("results %+v, %d, %v: want the one poll", res, dropped, err)
			}
			if r := res[0]; r.Status != StatusRevealed || fmt.Sprint(r.Counts) != tc.want || fmt.Sprint(r.Answers) != fmt.Sprint(tc.votes) {
				t.Errorf("result %+v", r)
			}
		})
	}
}

// TestAskChecks: a bad question is refused, a student cannot ask, and a
// vote replaces the student's earlier one until the reveal.
func TestAskChecks(t *testing.T) {
	h, _ := newTestHub(t, Config{})
	code, secret := mustCreate(t, h)
	var qe *QuestionError
	if _, err := h.Ask(code, secret, Question{Kind: KindChoice, Text: "q", Options: []string{"only"}}); !errors.As(err, &qe) {
		t.Errorf("one option: err = %v, want a QuestionError", err)
	}
	if st, _ := h.State(code, true); st.Poll != nil {
		t.Error("a refused question opened a poll")
	}
	if _, err := h.Ask(code, "nope", Question{Kind: KindChoice, Text: "q", Options: []string{"a", "b"}}); !errors.Is(err, ErrForbidden) {
		t.Errorf("a student asks: err = %v, want ErrForbidden", err)
	}
	st, _ := h.Ask(code, secret, Question{Kind: KindChoice, Text: "q", Options: []string{"a", "b"}})
	h.Vote(code, "s1", st.Poll.ID, 0)
	h.Vote(code, "s1", st.Poll.ID, 1)
	if got, _ := h.State(code, true); got.Poll.Votes != 1 || fmt.Sprint(got.Poll.Counts) != "[{0 0} {1 1}]" {
		t.Errorf("after a changed answer: %+v", got.Poll)
	}
}

// TestResultsHistory: closed polls are kept, replaced ones too (closed,
// unrevealed), the open one is listed last, and the history keeps the
// newest MaxHistory polls, counting the dropped ones.
func TestResultsHistory(t *testing.T) {
	h, _ := newTestHub(t, Config{MaxHistory: 3})
	code, secret := mustCreate(t, h)
	if res, dropped, err := h.Results(code, secret); err != nil || len(res) != 0 || dropped != 0 {
		t.Fatalf("a new room's results: %v, %d, %v", res, dropped, err)
	}
	if _, _, err := h.Results(code, "nope"); !errors.Is(err, ErrForbidden) {
		t.Errorf("results for a student: err = %v, want ErrForbidden", err)
	}
	ask := func(n int) int {
		st, err := h.Ask(code, secret, Question{Kind: KindChoice, Text: fmt.Sprint("q", n), Options: []string{"a", "b"}})
		if err != nil {
			t.Fatal(err)
		}
		return st.Poll.ID
	}
	id := ask(1)
	h.Vote(code, "s1", id, 1)
	id = ask(2) // replaces q1 unrevealed
	h.Vote(code, "s1", id, 0)
	h.Reveal(code, secret)
	h.Reveal(code, secret) // twice: still one result
	res, _, _ := h.Results(code, secret)
	if len(res) != 2 || res[0].Status != StatusClosed || res[1].Status != StatusRevealed || res[0].Answers["s1"] != 1 || res[1].Answers["s1"] != 0 {
		t.Fatalf("results %+v", res)
	}
	ask(3)
	res, _, _ = h.Results(code, secret)
	if len(res) != 3 || res[2].Status != StatusOpen || res[2].Question != "q3" {
		t.Fatalf("with a poll open: %+v", res)
	}
	for n := 4; n <= 7; n++ {
		ask(n)
	}
	res, dropped, _ := h.Results(code, secret)
	var qs []string
	for _, r := range res {
		qs = append(qs, r.Question+":"+r.Status)
	}
	// q1…q6 are closed, the newest three kept; q7 is open.
	if got := strings.Join(qs, " "); got != "q4:closed q5:closed q6:closed q7:open" || dropped != 3 {
		t.Errorf("history %s, dropped %d; want q4…q6 closed, q7 open, 3 dropped", got, dropped)
	}
	// The results are copies: changing them changes nothing in the room.
	res[0].Answers["x"] = 1
	res[0].Options[0] = "changed"
	again, _, _ := h.Results(code, secret)
	if len(again[0].Answers) != 0 || again[0].Options[0] != "a" {
		t.Error("Results shares its maps with the room")
	}
}
