package practice

import (
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Tests for holding a classroom on one progress file: a damaged file is
// refused at start, a write the database refuses is ErrNotSaved, and a
// profile's history is capped at MaxAttempts.

// attemptsFile is a progress file of n attempts of profile, one a second
// from start, at the questions qs in turn, each scored 1.
func attemptsFile(tb testing.TB, profile string, n int, start time.Time, qs ...string) []byte {
	tb.Helper()
	e := Export{Profile: profile}
	for i := range n {
		e.Attempts = append(e.Attempts, Attempt{ID: NewProfileID(), Question: qs[i%len(qs)], Score: 1,
			At: start.Add(time.Duration(i) * time.Second)})
	}
	data, err := encodeExport(e)
	if err != nil {
		tb.Fatal(err)
	}
	return data
}

func questionIDs(b *Bank) []string {
	var ids []string
	for _, q := range b.Questions() {
		ids = append(ids, q.ID)
	}
	return ids
}

// TestOpenDamagedFile writes a real progress file, closes it, overwrites
// bytes in its middle (a page's header and cells) and opens it again:
// quick_check finds the damage and Open says what to do about it.
func TestOpenDamagedFile(t *testing.T) {
	b := mustLoad(t)
	path := filepath.Join(t.TempDir(), "progress.db")
	s, err := Open(path, b)
	if err != nil {
		t.Fatal(err)
	}
	p := NewProfileID()
	if _, err := s.Import(context.Background(), p, attemptsFile(t, p, 2000, newClock().now, questionIDs(b)...)); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	corruptMiddle(t, path)

	_, err = Open(path, b)
	var damaged *DamagedError
	if !errors.As(err, &damaged) || !errors.Is(err, ErrDamaged) {
		t.Fatalf("Open of a damaged file: %v; want a *DamagedError", err)
	}
	t.Log(err)
	if damaged.Path != path || damaged.Detail == "" || strings.Contains(damaged.Detail, "\n") {
		t.Errorf("DamagedError %+v: want the path and what quick_check said, on one line", damaged)
	}
	for _, want := range []string{
		"the progress file " + path + " is damaged (quick_check: ",
		"move it aside (for example to " + path + ".broken) and start again: a new, empty progress file will be created",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the message does not say %q:\n%v", want, err)
		}
	}
	// Done as the message says: a new, empty file opens.
	if err := os.Rename(path, path+".broken"); err != nil {
		t.Fatal(err)
	}
	s = mustOpen(t, path, b)
	if n := len(mustAttempts(t, s, p)); n != 0 {
		t.Errorf("the new file has %d attempts", n)
	}
}

// corruptMiddle overwrites the first KiB of the page in the middle of a
// closed SQLite file.
func corruptMiddle(tb testing.TB, path string) {
	tb.Helper()
	const page = 4096
	if _, err := os.Stat(path + "-wal"); err == nil {
		tb.Fatalf("%s-wal is still there: the file was not closed cleanly", path)
	}
	fi, err := os.Stat(path)
	if err != nil {
		tb.Fatal(err)
	}
	if fi.Size() < 8*page {
		tb.Fatalf("the file is %d bytes: too small to damage only its middle", fi.Size())
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteAt([]byte(strings.Repeat("\xa5", 1024)), fi.Size()/2/page*page); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// TestOpenNotADatabase: a file that is not SQLite at all is damaged too.
func TestOpenNotADatabase(t *testing.T) {
	path := filepath.Join(t.TempDir(), "progress.db")
	if err := os.WriteFile(path, []byte(strings.Repeat("not a database\n", 500)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(path, mustLoad(t))
	var damaged *DamagedError
	if !errors.As(err, &damaged) || !strings.Contains(err.Error(), path+".broken") {
		t.Fatalf("Open: %v; want a *DamagedError saying to move the file aside", err)
	}
}

// TestRecordNotSaved: a write the database refuses at run time is
// ErrNotSaved, whatever the cause. The test makes the database refuse
// inserts with a trigger, added from a second connection as another
// process could: the same path through Record and Import as a read-only
// or failing disk takes.
func TestRecordNotSaved(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "progress.db")
	s := mustOpen(t, path, b)
	p := NewProfileID()
	mustRecord(t, s, p, "dup-sources", 1, newClock().now)

	other, err := sql.Open("sqlite", path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	if _, err := other.Exec(`CREATE TRIGGER refuse BEFORE INSERT ON attempts
		BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Record(ctx, p, "dup-sources", 0, newClock().now); !errors.Is(err, ErrNotSaved) {
		t.Errorf("Record: %v; want ErrNotSaved", err)
	}
	if _, err := s.Import(ctx, p, attemptsFile(t, p, 3, newClock().now, "dup-sources")); !errors.Is(err, ErrNotSaved) {
		t.Errorf("Import: %v; want ErrNotSaved", err)
	}
	if _, err := other.Exec(`CREATE TRIGGER refuse_solve BEFORE INSERT ON solved
		BEGIN SELECT RAISE(ABORT, 'disk I/O error (simulated)'); END`); err != nil {
		t.Fatal(err)
	}
	solve := Solve{Challenge: "naive-twice", Steps: 2, Script: "publish pay-1 amount=1\ndeliver crash=before-ack\n", At: newClock().now}
	if best, err := s.SaveSolve(ctx, p, solve); !errors.Is(err, ErrNotSaved) || best {
		t.Errorf("SaveSolve: %v, %v; want ErrNotSaved", best, err)
	}
	// The reader's mistakes are still theirs, not ErrNotSaved.
	if _, err := s.Record(ctx, p, "no-such-question", 1, newClock().now); errors.Is(err, ErrNotSaved) || !errors.Is(err, ErrUnknownQuestion) {
		t.Errorf("Record of an unknown question: %v; want ErrUnknownQuestion", err)
	}
	if n := len(mustAttempts(t, s, p)); n != 1 {
		t.Errorf("%d attempts stored, want the 1 from before", n)
	}
	if _, err := other.Exec(`DROP TRIGGER refuse`); err != nil {
		t.Fatal(err)
	}
	mustRecord(t, s, p, "dup-sources", 0, newClock().now)
}

// TestRecordPastTheCap: at MaxAttempts, an answer is still saved, and
// room is made by dropping the oldest attempt that a later one at the
// same question supersedes; a question's only attempt stays, however old,
// so the bars do not move back.
func TestRecordPastTheCap(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
	qs := questionIDs(b)
	only, rest := qs[0], qs[1:]
	p := NewProfileID()
	start := newClock().now
	// The oldest attempt is the only one at its question; the second
	// oldest is at a question answered again later.
	file := Export{Profile: p, Attempts: []Attempt{{ID: NewProfileID(), Question: only, Score: 1, At: start}}}
	for i := 1; i < MaxAttempts; i++ {
		file.Attempts = append(file.Attempts, Attempt{ID: NewProfileID(), Question: rest[(i-1)%len(rest)], Score: 1,
			At: start.Add(time.Duration(i) * time.Second)})
	}
	data, err := encodeExport(file)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s.Import(ctx, p, data); err != nil || r.Added != MaxAttempts {
		t.Fatalf("import to the cap: %+v, %v", r, err)
	}
	before, err := s.Progress(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	at := start.Add(2 * time.Hour)
	var recorded []Attempt
	for i := range 3 {
		recorded = append(recorded, mustRecord(t, s, p, rest[i], 0, at.Add(time.Duration(i)*time.Second)))
	}
	as := mustAttempts(t, s, p)
	if len(as) != MaxAttempts {
		t.Fatalf("%d attempts stored, want %d", len(as), MaxAttempts)
	}
	stored := map[string]bool{}
	for _, a := range as {
		stored[a.ID] = true
	}
	if !stored[file.Attempts[0].ID] {
		t.Errorf("the only attempt at %s was dropped", only)
	}
	for _, a := range file.Attempts[1:4] {
		if stored[a.ID] {
			t.Errorf("attempt %s at %s (%v), the oldest superseded, is still stored", a.ID, a.Question, a.At)
		}
	}
	for _, a := range recorded {
		if !stored[a.ID] {
			t.Errorf("the answer just given (%s) was not kept", a.Question)
		}
	}
	after, err := s.Progress(ctx, p)
	if err != nil {
		t.Fatal(err)
	}
	if after.Overall.Answered != before.Overall.Answered {
		t.Errorf("answered %d before the cap, %d after", before.Overall.Answered, after.Overall.Answered)
	}
	if it := after.Items[rest[0]]; it.LastScore != 0 || !it.LastAt.Equal(recorded[0].At) {
		t.Errorf("%s: %+v; want the latest answer, scored 0", rest[0], it)
	}
}

// TestImportCap: an import that would take a profile past MaxAttempts is
// refused as a whole, saying how many the profile has and the cap; one
// that reaches it exactly, or adds nothing, goes through.
func TestImportCap(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
	qs := questionIDs(b)
	p := NewProfileID()
	start := newClock().now
	first := attemptsFile(t, p, MaxAttempts-10, start, qs...)
	if _, err := s.Import(ctx, p, first); err != nil {
		t.Fatal(err)
	}
	later := start.Add(24 * time.Hour)
	_, err := s.Import(ctx, p, attemptsFile(t, p, 11, later, qs...))
	var tooMany *TooManyAttemptsError
	if !errors.As(err, &tooMany) || !errors.Is(err, ErrTooManyAttempts) {
		t.Fatalf("import past the cap: %v; want a *TooManyAttemptsError", err)
	}
	if *tooMany != (TooManyAttemptsError{Have: MaxAttempts - 10, Added: 11, Max: MaxAttempts}) {
		t.Errorf("%+v", *tooMany)
	}
	if n := len(mustAttempts(t, s, p)); n != MaxAttempts-10 {
		t.Fatalf("%d attempts after a refused import, want %d: nothing may be imported in part", n, MaxAttempts-10)
	}
	// The file imported again adds nothing: it passes, even at the cap.
	if r, err := s.Import(ctx, p, attemptsFile(t, p, 10, later, qs...)); err != nil || r.Added != 10 {
		t.Fatalf("import to the cap exactly: %+v, %v", r, err)
	}
	if r, err := s.Import(ctx, p, first); err != nil || r.Added != 0 || r.Skipped != MaxAttempts-10 {
		t.Errorf("the first file again, at the cap: %+v, %v; want all skipped", r, err)
	}
	// Another profile has a cap of its own.
	other := NewProfileID()
	if r, err := s.Import(ctx, other, first); err != nil || r.Added != MaxAttempts-10 {
		t.Errorf("the file into an empty profile: %+v, %v", r, err)
	}
}

// TestFullProfileExportImports: MaxImportBytes is large enough for the
// export of a profile at the cap, with the bank's longest question id and
// the longest score, so every file the lab exports imports again.
func TestFullProfileExportImports(t *testing.T) {
	b := mustLoad(t)
	long := ""
	for _, id := range questionIDs(b) {
		if len(id) > len(long) {
			long = id
		}
	}
	p := NewProfileID()
	e := Export{Profile: p}
	at := time.Date(2026, 3, 1, 10, 0, 0, 123e6, time.UTC)
	for i := range MaxAttempts {
		e.Attempts = append(e.Attempts, Attempt{ID: NewProfileID(), Question: long, Score: 1.0 / 3, At: at.Add(time.Duration(i) * time.Millisecond)})
	}
	data, err := encodeExport(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(data) > MaxImportBytes {
		t.Fatalf("a full profile exports to %d bytes; MaxImportBytes is %d", len(data), MaxImportBytes)
	}
	t.Logf("a full profile exports to %d bytes (%.0f%% of MaxImportBytes)", len(data), float64(len(data))*100/MaxImportBytes)
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), b)
	if r, err := s.Import(context.Background(), p, data); err != nil || r.Added != MaxAttempts {
		t.Fatalf("import: %+v, %v", r, err)
	}
}
