package classroom

// Polls of every kind, and their results. A poll asks for a handler's
// balance after the next step, for its verdict, or is a multiple-choice
// question the instructor types; the room keeps every poll it closed, and
// the instructor takes them home as a CSV file.

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/idempotency-lab/lab/practice"
	"github.com/idempotency-lab/lab/sim"
	"github.com/idempotency-lab/lab/web/classroom/room"
	"github.com/idempotency-lab/lab/web/labview"
	"github.com/idempotency-lab/lab/web/page"
)

// unprocessable is a 422: the form was read, but what it asks cannot be
// done (too many answers, an answer that is no option). Its page's
// heading is that a value is not valid.
func unprocessable(key string, args ...any) *page.Error {
	return &page.Error{Status: http.StatusUnprocessableEntity, Key: key, Args: args, Title: "err.title.invalid"}
}

// readQuestion reads the instructor's poll form (see roomPoll).
func (s *Classroom) readQuestion(ctx context.Context, f url.Values, ls labview.State) (room.Question, error) {
	raw := strings.TrimSpace(f.Get("kind"))
	kind := room.Kind(raw)
	if raw == "" {
		kind = room.KindBalance // the form before kinds had none
	}
	var q room.Question
	switch kind {
	case room.KindBalance, room.KindVerdict:
		h := strings.TrimSpace(f.Get("handler"))
		if !slices.Contains(ls.Handlers, h) {
			return q, page.BadRequest("err.pollhandler", h, strings.Join(ls.Handlers, ", "))
		}
		if ls.Step >= ls.Total() {
			return q, page.BadRequest("err.polllast", ls.Total())
		}
		q = room.Question{Kind: kind, Handler: h, Step: ls.Step + 1}
		if kind == room.KindVerdict {
			choices := practice.Verdicts()
			if ls.Script.API {
				choices = practice.APIVerdicts() // wrong-status, and no poison
			}
			for _, v := range choices {
				q.Options = append(q.Options, string(v))
			}
		}
		// The right answer is the engine's, known now: the room keeps it
		// for the reveal and for the results.
		if res, ok := s.resultAt(ctx, ls, h, ls.Step+1); ok {
			a := res.Balance
			if kind == room.KindVerdict {
				a = int64(slices.Index(q.Options, string(res.Verdict)))
			}
			if a >= 0 {
				q.Answer = &a
			}
		}
	case room.KindChoice:
		q = room.Question{Kind: kind, Step: ls.Step, Text: strings.TrimSpace(f.Get("question"))}
		opts := f["option"]
		// The form has room.MaxOptions fields: the ones left empty at the
		// end are no answers. An empty one before a filled one is a
		// mistake, said so.
		for len(opts) > 0 && strings.TrimSpace(opts[len(opts)-1]) == "" {
			opts = opts[:len(opts)-1]
		}
		for _, o := range opts {
			q.Options = append(q.Options, strings.TrimSpace(o))
		}
		if c := strings.TrimSpace(f.Get("correct")); c != "" && c != "none" {
			n, err := strconv.Atoi(c)
			if err != nil || n < 1 || n > len(q.Options) {
				return q, unprocessable("err.poll.answer", c, max(len(q.Options), room.MinOptions))
			}
			a := int64(n - 1)
			q.Answer = &a
		}
	default:
		kinds := make([]string, len(room.Kinds))
		for i, k := range room.Kinds {
			kinds[i] = string(k)
		}
		return q, page.BadRequest("err.pollkind", raw, strings.Join(kinds, ", "))
	}
	var qe *room.QuestionError
	if err := q.Check(); errors.As(err, &qe) {
		return q, questionProblem(qe)
	}
	return q, nil
}

// questionProblem is the page of what is wrong with a question.
func questionProblem(qe *room.QuestionError) error {
	switch qe.Problem {
	case "kind", "handler":
		return page.BadRequest("err.poll." + qe.Problem)
	case "option-empty":
		return unprocessable("err.poll.option-empty", qe.Option+1)
	case "option-long":
		return unprocessable("err.poll.option-long", qe.Option+1, qe.Limit)
	case "answer":
		return unprocessable("err.poll.answer", "", room.MaxOptions)
	}
	return unprocessable("err.poll."+qe.Problem, qe.Limit)
}

// readChoice reads a vote for a poll with options: choice=N, from 1.
func readChoice(t page.Text, raw string, p *room.Poll) (int64, error) {
	labels := optionLabels(t, p)
	n, err := strconv.Atoi(strings.TrimSpace(raw))
	switch {
	case err != nil:
		return 0, page.BadRequest("err.pollchoice", raw, choiceList(labels))
	case n < 1 || n > len(labels):
		return 0, unprocessable("err.pollchoice", raw, choiceList(labels))
	}
	return int64(n - 1), nil
}

// resultAt is handler's outcome after step, replaying the script that far
// on that handler alone.
func (s *Classroom) resultAt(ctx context.Context, ls labview.State, handler string, step int) (sim.Result, bool) {
	if step < 0 || step > ls.Total() {
		return sim.Result{}, false
	}
	st := ls
	st.Handlers, st.Step = []string{handler}, step
	run, err := s.Replayer.Replay(ctx, st)
	if err != nil || len(run.Results) != 1 {
		return sim.Result{}, false
	}
	return run.Results[0], true
}

// RoomResults is the room's polls as a CSV file, for its instructor only.
//
// The file is what a teacher opens in a spreadsheet after class. Its
// first table has one row per answer of each poll: the poll's number,
// status, step, kind, handler and question, then the answer, how many
// students gave it and whether it was the right one. A chart of one
// poll is its rows' answer and votes columns; a filter on "correct"
// shows the right answers. After an empty row, a second table has one
// row per student and poll: each student under a pseudonym (S1, S2, … in
// the order they first answered; the room knows no names, and its ids
// stay in the room), so a teacher can count a student's right answers
// with a pivot table. A room with no polls is the first header alone.
// Every cell that a spreadsheet would read as a formula (=, +, -, @ and
// the like first) starts with an apostrophe: questions are typed text.
func (s *Classroom) RoomResults(w http.ResponseWriter, r *http.Request) error {
	code := roomCode(r)
	if _, err := s.Hub.State(code, false); err != nil {
		return problemFor(code, err)
	}
	results, dropped, err := s.Hub.Results(code, cookieValue(r, SecretCookie))
	if errors.Is(err, room.ErrForbidden) {
		return &roomProblem{status: http.StatusForbidden, title: "rm.results.t", msg: "rm.results.m", code: code}
	}
	if err != nil {
		return problemFor(code, err)
	}
	data, err := resultsCSV(s.Shell.Text(r), results, dropped)
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "text/csv; charset=utf-8")
	h.Set("Content-Disposition", `attachment; filename="room-`+code+`-results.csv"`)
	h.Set("Cache-Control", "no-store")
	h.Set("Vary", "Cookie")
	w.WriteHeader(http.StatusOK)
	_, err = w.Write(data)
	return err
}

// resultsCSV writes the results (see roomResults) in t's language.
func resultsCSV(t page.Text, results []room.Result, dropped int) ([]byte, error) {
	var buf bytes.Buffer
	cw := csv.NewWriter(&buf)
	write := func(cells ...string) {
		for i, c := range cells {
			cells[i] = csvCell(c)
		}
		cw.Write(cells)
	}
	write(t.S("csv.poll"), t.S("csv.status"), t.S("csv.step"), t.S("csv.kind"), t.S("csv.handler"),
		t.S("csv.question"), t.S("csv.option"), t.S("csv.votes"), t.S("csv.correct"))
	yesNo := func(known, right bool) string {
		switch {
		case !known:
			return ""
		case right:
			return t.S("csv.yes")
		}
		return t.S("csv.no")
	}
	for _, res := range results {
		p := &res.Poll
		head := []string{strconv.Itoa(p.ID), t.S("csv.status." + res.Status), strconv.Itoa(p.Step),
			t.S("poll.kind." + string(p.Kind)), p.Handler, pollQuestion(t, p)}
		row := func(option string, votes int, correct string) {
			write(append(slices.Clone(head), option, strconv.Itoa(votes), correct)...)
		}
		counts := map[int64]int{}
		for _, c := range res.Counts {
			counts[c.Balance] = c.Count
		}
		if p.Kind == room.KindBalance {
			values := make([]int64, 0, len(counts)+1)
			for v := range counts {
				values = append(values, v)
			}
			if p.Answer != nil && !slices.Contains(values, *p.Answer) {
				values = append(values, *p.Answer)
			}
			slices.Sort(values)
			if len(values) == 0 {
				row("", 0, "")
			}
			for _, v := range values {
				row(page.Money(v), counts[v], yesNo(p.Answer != nil, p.Answer != nil && *p.Answer == v))
			}
			continue
		}
		for i, l := range optionLabels(t, p) {
			row(l, counts[int64(i)], yesNo(p.Answer != nil, p.Answer != nil && *p.Answer == int64(i)))
		}
	}
	if len(results) > 0 {
		write()
		write(t.S("csv.student"), t.S("csv.poll"), t.S("csv.answer"), t.S("csv.correct"))
		// Pseudonyms in the order students first answered (ids sorted
		// within a poll, so that the file is the same every time).
		names := map[string]string{}
		var order []string
		for _, res := range results {
			ids := make([]string, 0, len(res.Answers))
			for id := range res.Answers {
				ids = append(ids, id)
			}
			sort.Strings(ids)
			for _, id := range ids {
				if names[id] == "" {
					names[id] = "S" + strconv.Itoa(len(order)+1)
					order = append(order, id)
				}
			}
		}
		for _, id := range order {
			for _, res := range results {
				a, ok := res.Answers[id]
				if !ok {
					continue
				}
				p := &res.Poll
				label := page.Money(a)
				if p.Kind != room.KindBalance {
					if labels := optionLabels(t, p); a >= 0 && a < int64(len(labels)) {
						label = labels[a]
					}
				}
				write(names[id], strconv.Itoa(p.ID), label, yesNo(p.Answer != nil, p.Answer != nil && *p.Answer == a))
			}
		}
	}
	if dropped > 0 {
		write()
		write(t.F("csv.dropped", dropped, len(results)))
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return nil, fmt.Errorf("results csv: %w", err)
	}
	return buf.Bytes(), nil
}

// csvCell keeps a spreadsheet from running a cell as a formula: a cell
// that starts with =, +, -, @, a tab or a carriage return gets an
// apostrophe first (the OWASP advice), and shows as typed.
func csvCell(s string) string {
	if s != "" && strings.ContainsRune("=+-@\t\r", rune(s[0])) {
		return "'" + s
	}
	return s
}
