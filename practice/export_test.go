package practice

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestExportImportRoundTrip(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	c := newClock()
	home := mustOpen(t, filepath.Join(t.TempDir(), "home.db"), b)
	p := NewProfileID()
	for i, q := range []string{"dup-sources", "unique-payment-webhook", "predict-naive-crash-before-ack", "dup-sources"} {
		mustRecord(t, home, p, q, float64(i%3)/2, c.advance(time.Hour))
	}
	data, err := home.Export(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if !json.Valid(data) || !bytes.Contains(data, []byte(`"format": "idempotency-lab-progress"`)) {
		t.Fatalf("export is not the documented JSON:\n%s", data)
	}

	// Another machine: a fresh file and a fresh cookie.
	work := mustOpen(t, filepath.Join(t.TempDir(), "work.db"), b)
	q := NewProfileID()
	mustRecord(t, work, q, "cost-inbox-wins", 1, c.advance(time.Hour)) // something of its own
	r, err := work.Import(ctx, q, data)
	if err != nil {
		t.Fatal(err)
	}
	if r != (ImportResult{From: p, Added: 4}) {
		t.Errorf("first import: %+v", r)
	}
	// The union: p's history plus q's own answer.
	want := append(mustAttempts(t, home, p), mustAttempts(t, work, q)[4])
	if got := mustAttempts(t, work, q); !reflect.DeepEqual(got, want) {
		t.Errorf("merged history:\n got %+v\nwant %+v", got, want)
	}
	// Importing the same file again changes nothing: the merge is idempotent.
	r, err = work.Import(ctx, q, data)
	if err != nil || r != (ImportResult{From: p, Added: 0, Skipped: 4}) {
		t.Errorf("second import: %+v, %v", r, err)
	}
	if n := len(mustAttempts(t, work, q)); n != 5 {
		t.Errorf("%d attempts after re-import, want 5", n)
	}
	// Restoring into the original profile on the original machine: all skipped.
	if r, err := home.Import(ctx, p, data); err != nil || r.Skipped != 4 || r.Added != 0 {
		t.Errorf("restore onto itself: %+v, %v", r, err)
	}
	// Progress computed from the imported history equals the original's.
	pp, _ := home.Progress(ctx, p)
	restored := mustOpen(t, filepath.Join(t.TempDir(), "r.db"), b)
	if _, err := restored.Import(ctx, p, data); err != nil {
		t.Fatal(err)
	}
	rp, _ := restored.Progress(ctx, p)
	if !reflect.DeepEqual(pp, rp) {
		t.Errorf("progress after restore differs:\n%+v\n%+v", pp, rp)
	}
	// And its export is byte-identical.
	again, _ := restored.Export(ctx, p)
	if !bytes.Equal(again, data) {
		t.Errorf("re-export differs:\n%s\n%s", data, again)
	}
}

func TestExportEmptyProfile(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p := NewProfileID()
	data, err := s.Export(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	e, err := ParseExport(data, s.bank)
	if err != nil || e.Profile != p || len(e.Attempts) != 0 {
		t.Errorf("empty export: %+v, %v\n%s", e, err, data)
	}
	if r, err := s.Import(context.Background(), p, data); err != nil || r.Added != 0 {
		t.Errorf("importing an empty export: %+v, %v", r, err)
	}
	if _, err := s.Export(context.Background(), "nope"); !errors.Is(err, ErrBadProfile) {
		t.Errorf("export of a bad profile id: %v", err)
	}
}

// validFile is a well-formed progress file; each error case changes one
// thing in it.
func validFile(profile string, attempts ...string) string {
	if attempts == nil {
		attempts = []string{attempt("AAAAAAAAAAAAAAAAAAAAAAAAAA", "dup-sources", "1", "2026-03-01T09:00:00Z")}
	}
	return fmt.Sprintf(`{"format": "idempotency-lab-progress", "version": 1, "profile": %q, "attempts": [%s]}`,
		profile, strings.Join(attempts, ","))
}

func attempt(id, question, score, at string) string {
	return fmt.Sprintf(`{"id": %q, "question": %q, "score": %s, "at": %q}`, id, question, score, at)
}

func TestImportRejects(t *testing.T) {
	b := mustLoad(t)
	p := NewProfileID()
	id1, id2 := strings.Repeat("B", 26), strings.Repeat("C", 26)
	good := attempt(id1, "dup-sources", "0.5", "2026-03-01T09:00:00Z")
	many := make([]string, MaxImportAttempts+1)
	for i := range many {
		many[i] = good
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"not JSON", "progress!", "not a progress file"},
		{"empty", "", "not a progress file"},
		{"an array", "[]", "not a progress file"},
		{"trailing data", validFile(p) + " {}", "after the progress object"},
		{"unknown field", strings.Replace(validFile(p), `"version"`, `"colour": 1, "version"`, 1), "unknown field"},
		{"wrong format", strings.Replace(validFile(p), "idempotency-lab-progress", "something-else", 1), "format"},
		{"missing version", strings.Replace(validFile(p), `"version": 1,`, "", 1), "version is missing"},
		{"newer version", strings.Replace(validFile(p), `"version": 1`, `"version": 4`, 1), "newer lab"},
		{"bad profile", validFile("alice"), "profile"},
		{"too large", validFile(p) + strings.Repeat(" ", MaxImportBytes), "limit"},
		{"too many attempts", validFile(p, many...), "attempts; the limit"},
		{"bad attempt id", validFile(p, attempt("x", "dup-sources", "1", "2026-03-01T09:00:00Z")), "not an attempt id"},
		{"attempt id twice", validFile(p, good, good), "appears twice"},
		{"missing score", validFile(p, `{"id": "`+id1+`", "question": "dup-sources", "at": "2026-03-01T09:00:00Z"}`), "score is missing"},
		{"score above 1", validFile(p, attempt(id1, "dup-sources", "1.5", "2026-03-01T09:00:00Z")), "not from 0 to 1"},
		{"negative score", validFile(p, attempt(id1, "dup-sources", "-1", "2026-03-01T09:00:00Z")), "not from 0 to 1"},
		{"score as text", validFile(p, attempt(id1, "dup-sources", `"1"`, "2026-03-01T09:00:00Z")), "not a progress file"},
		{"unknown question", validFile(p, attempt(id1, "what-is-kafka", "1", "2026-03-01T09:00:00Z")), "unknown question"},
		{"missing time", validFile(p, `{"id": "`+id1+`", "question": "dup-sources", "score": 1}`), "time"},
		{"time far away", validFile(p, attempt(id1, "dup-sources", "1", "2301-01-01T00:00:00Z")), "time"},
		{"bad time", validFile(p, attempt(id1, "dup-sources", "1", "yesterday")), "not a progress file"},
		{"one bad among good", validFile(p, good, attempt(id2, "nope", "1", "2026-03-01T09:00:00Z")), "attempts[1]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
			_, err := s.Import(context.Background(), p, []byte(tc.file))
			if !errors.Is(err, ErrBadImport) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrBadImport mentioning %q", err, tc.want)
			}
			if n := len(mustAttempts(t, s, p)); n != 0 {
				t.Errorf("%d attempts written by a rejected import", n)
			}
		})
	}
}

func TestImportBadTarget(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	if _, err := s.Import(context.Background(), "nobody", []byte(validFile(NewProfileID()))); !errors.Is(err, ErrBadProfile) {
		t.Errorf("err = %v, want ErrBadProfile", err)
	}
}

// TestImportConflict: a file that claims an attempt id already stored with
// other content is refused as a whole, the way the inbox refuses a repeat
// with another amount; nothing from the file is written.
func TestImportConflict(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
	p := NewProfileID()
	a := mustRecord(t, s, p, "dup-sources", 1, newClock().now)
	at := a.At.Format(time.RFC3339Nano)
	fresh := attempt(strings.Repeat("D", 26), "keys-broker-ids", "1", at)
	for name, changed := range map[string]string{
		"score":    attempt(a.ID, "dup-sources", "0", at),
		"question": attempt(a.ID, "keys-broker-ids", "1", at),
		"time":     attempt(a.ID, "dup-sources", "1", a.At.Add(time.Second).Format(time.RFC3339Nano)),
	} {
		t.Run(name, func(t *testing.T) {
			_, err := s.Import(ctx, p, []byte(validFile(p, fresh, changed)))
			if !errors.Is(err, ErrImportConflict) {
				t.Fatalf("err = %v, want ErrImportConflict", err)
			}
			if got := mustAttempts(t, s, p); len(got) != 1 || got[0] != a {
				t.Errorf("stored attempts changed: %+v", got)
			}
		})
	}
	// The same content under the same id is not a conflict.
	if r, err := s.Import(ctx, p, []byte(validFile(p, attempt(a.ID, "dup-sources", "1", at)))); err != nil || r.Skipped != 1 {
		t.Errorf("identical attempt: %+v, %v", r, err)
	}
}
