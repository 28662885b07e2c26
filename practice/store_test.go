package practice

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func mustOpen(tb testing.TB, path string, b *Bank) *Store {
	tb.Helper()
	s, err := Open(path, b)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { s.Close() })
	return s
}

func mustRecord(tb testing.TB, s *Store, profile, q string, score float64, at time.Time) Attempt {
	tb.Helper()
	a, err := s.Record(context.Background(), profile, q, score, at)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

func mustAttempts(tb testing.TB, s *Store, profile string) []Attempt {
	tb.Helper()
	as, err := s.Attempts(context.Background(), profile)
	if err != nil {
		tb.Fatal(err)
	}
	return as
}

func TestStoreSettings(t *testing.T) {
	b := mustLoad(t)
	path := filepath.Join(t.TempDir(), "deep", "er", "progress.db") // folders are created
	s := mustOpen(t, path, b)
	ctx := context.Background()
	for pragma, want := range map[string]string{
		"journal_mode": "wal", "synchronous": "2", "foreign_keys": "1", "busy_timeout": "5000",
	} {
		var got string
		if err := s.db.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != want {
			t.Errorf("PRAGMA %s = %s, want %s", pragma, got, want)
		}
	}
	if v, err := s.SchemaVersion(ctx); err != nil || v != len(migrations()) {
		t.Errorf("schema version %d, %v; want %d", v, err, len(migrations()))
	}
}

// TestStoreRestart closes the database and opens the file again, as a
// server restart does: everything recorded is there, and opening again
// does not re-run migrations.
func TestStoreRestart(t *testing.T) {
	b := mustLoad(t)
	path := filepath.Join(t.TempDir(), "progress.db")
	ctx := context.Background()
	c := newClock()
	alice, bob := NewProfileID(), NewProfileID()

	s, err := Open(path, b)
	if err != nil {
		t.Fatal(err)
	}
	var want []Attempt
	for i, q := range []string{"dup-sources", "keys-broker-ids", "dup-sources"} {
		want = append(want, mustRecord(t, s, alice, q, float64(i)/2, c.advance(time.Minute)))
	}
	mustRecord(t, s, bob, "cost-inbox-wins", 1, c.now)
	before, err := s.Progress(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}

	s2 := mustOpen(t, path, b)
	if got := mustAttempts(t, s2, alice); !reflect.DeepEqual(got, want) {
		t.Fatalf("after restart:\n got %+v\nwant %+v", got, want)
	}
	after, err := s2.Progress(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(before, after) {
		t.Errorf("progress changed across the restart:\n%+v\n%+v", before, after)
	}
	if len(mustAttempts(t, s2, bob)) != 1 {
		t.Error("bob's answer is gone")
	}
	if v, _ := s2.SchemaVersion(ctx); v != len(migrations()) {
		t.Errorf("schema version %d after reopening", v)
	}
}

func TestRecordKeepsTimeToTheMillisecond(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p := NewProfileID()
	at := time.Date(2026, 5, 1, 12, 0, 0, 123_456_789, time.FixedZone("MSK", 3*3600))
	a := mustRecord(t, s, p, "dup-sources", 1, at)
	want := time.Date(2026, 5, 1, 9, 0, 0, 123_000_000, time.UTC)
	if !a.At.Equal(want) || a.At.Location() != time.UTC {
		t.Errorf("returned time %v, want %v", a.At, want)
	}
	if got := mustAttempts(t, s, p)[0].At; got != a.At {
		t.Errorf("stored time %v, returned %v", got, a.At)
	}
}

func TestRecordRejects(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "p.db"), mustLoad(t))
	p := NewProfileID()
	at := newClock().now
	for _, tc := range []struct {
		name, profile, question string
		score                   float64
		at                      time.Time
		want                    error
	}{
		{"empty profile", "", "dup-sources", 1, at, ErrBadProfile},
		{"lowercase profile", strings.ToLower(p), "dup-sources", 1, at, ErrBadProfile},
		{"short profile", p[:10], "dup-sources", 1, at, ErrBadProfile},
		{"unknown question", p, "nope", 1, at, ErrUnknownQuestion},
		{"score above 1", p, "dup-sources", 1.01, at, ErrBadScore},
		{"negative score", p, "dup-sources", -0.1, at, ErrBadScore},
		{"NaN score", p, "dup-sources", math.NaN(), at, ErrBadScore},
		{"zero time", p, "dup-sources", 1, time.Time{}, ErrBadTime},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Record(context.Background(), tc.profile, tc.question, tc.score, tc.at); !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
		})
	}
	if n := len(mustAttempts(t, s, p)); n != 0 {
		t.Errorf("%d attempts written by rejected calls", n)
	}
	if _, err := s.Attempts(context.Background(), "bad"); !errors.Is(err, ErrBadProfile) {
		t.Errorf("Attempts with a bad profile: %v", err)
	}
}

// TestConcurrentProfiles has two profiles answer at once from several
// goroutines each, on two Store values sharing the file as two server
// processes would: no answer is lost or doubled.
func TestConcurrentProfiles(t *testing.T) {
	b := mustLoad(t)
	path := filepath.Join(t.TempDir(), "p.db")
	stores := []*Store{mustOpen(t, path, b), mustOpen(t, path, b)}
	profiles := []string{NewProfileID(), NewProfileID()}
	qs := b.Questions()
	const workers, each = 4, 25
	at := newClock().now
	var wg sync.WaitGroup
	errs := make(chan error, len(profiles)*workers*each)
	for pi, p := range profiles {
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s := stores[(pi+w)%len(stores)]
				for i := range each {
					q := qs[(w*each+i)%len(qs)]
					ms := time.Duration(w*each+i) * time.Millisecond
					if _, err := s.Record(context.Background(), p, q.ID, 1, at.Add(ms)); err != nil {
						errs <- err
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	for _, p := range profiles {
		as := mustAttempts(t, stores[0], p)
		if len(as) != workers*each {
			t.Errorf("profile %s: %d attempts, want exactly %d", p, len(as), workers*each)
		}
		ids := map[string]bool{}
		for _, a := range as {
			ids[a.ID] = true
		}
		if len(ids) != len(as) {
			t.Errorf("profile %s: attempt ids repeat", p)
		}
		prog, err := stores[1].Progress(context.Background(), p)
		if err != nil {
			t.Fatal(err)
		}
		if want := min(workers*each, len(qs)); prog.Overall.Answered != want {
			t.Errorf("profile %s: %d answered, want %d", p, prog.Overall.Answered, want)
		}
	}
}

func TestOpenRejects(t *testing.T) {
	b := mustLoad(t)
	dir := t.TempDir()
	if _, err := Open(filepath.Join(dir, "what?.db"), b); err == nil {
		t.Error("a path with ? was accepted")
	}
	if _, err := Open("", b); err == nil {
		t.Error("an empty path was accepted")
	}
	// A file from a newer lab is refused, not downgraded.
	path := filepath.Join(dir, "new.db")
	s := mustOpen(t, path, b)
	if _, err := s.db.Exec(`UPDATE schema_version SET version = 99`); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(path, b); err == nil || !strings.Contains(err.Error(), "newer") {
		t.Errorf("newer schema: err = %v", err)
	}
}

func TestDefaultPath(t *testing.T) {
	t.Setenv("XDG_DATA_HOME", "/data/xdg")
	if p, err := DefaultPath(); err != nil || p != filepath.Join("/data/xdg", "idempotency-lab", "progress.db") {
		t.Errorf("with XDG_DATA_HOME: %q, %v", p, err)
	}
	t.Setenv("XDG_DATA_HOME", "relative/ignored")
	p, err := DefaultPath()
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(p) != "progress.db" || filepath.Base(filepath.Dir(p)) != "idempotency-lab" || !filepath.IsAbs(p) {
		t.Errorf("default path %q", p)
	}
	if runtime.GOOS == "linux" {
		t.Setenv("HOME", "/home/u")
		if p, _ := DefaultPath(); p != "/home/u/.local/share/idempotency-lab/progress.db" {
			t.Errorf("linux default %q", p)
		}
	}
}

func TestProfileIDs(t *testing.T) {
	seen := map[string]bool{}
	for range 100 {
		id := NewProfileID()
		if !ValidProfileID(id) {
			t.Fatalf("minted id %q is not valid", id)
		}
		if seen[id] {
			t.Fatal("minted the same id twice")
		}
		seen[id] = true
	}
	for _, bad := range []string{"", "abc", strings.Repeat("A", 25), strings.Repeat("A", 27), strings.Repeat("a", 26),
		strings.Repeat("A", 25) + "1", strings.Repeat("A", 25) + "8", strings.Repeat("A", 25) + "=", "../" + strings.Repeat("A", 23)} {
		if ValidProfileID(bad) {
			t.Errorf("ValidProfileID(%q) = true", bad)
		}
	}
}
