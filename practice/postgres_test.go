package practice

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/idempotency-lab/lab/internal/servers"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL, if a test started it
	os.Exit(code)
}

// pgStore opens a store in a schema of its own on a throwaway PostgreSQL
// (skipped without one, except in CI), and returns how to open it again.
func pgStore(t *testing.T, b *Bank) (*Store, func() *Store) {
	t.Helper()
	url := servers.Postgres(t)
	schema := fmt.Sprintf("progress_%d", rand.Uint32())
	open := func() *Store {
		s, err := OpenPostgres(context.Background(), url, schema, b)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { s.Close() })
		return s
	}
	return open(), open
}

// TestPostgresStore: the progress store on PostgreSQL keeps what the
// SQLite file keeps, across a restart (the store opened again, as by a
// second lab server), with the same schema version; solves keep the
// shortest; an export imports into it; two profiles answering at once
// each keep all their answers.
func TestPostgresStore(t *testing.T) {
	b := mustLoad(t)
	ctx := context.Background()
	c := newClock()
	s, reopen := pgStore(t, b)
	alice, bob := NewProfileID(), NewProfileID()
	var want []Attempt
	for i, q := range []string{"dup-sources", "keys-broker-ids", "dup-sources"} {
		want = append(want, mustRecord(t, s, alice, q, float64(i)/2, c.advance(time.Minute)))
	}
	before, err := s.Progress(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	two := Solve{Challenge: "unique-error-dlq", Steps: 2, Script: pub + "deliver crash=before-ack\n", At: day}
	three := Solve{Challenge: "unique-error-dlq", Steps: 3, Script: pub + "deliver\nretry pay-1\n", At: day.Add(time.Hour)}
	for _, v := range []Solve{three, two, three} {
		if _, err := s.SaveSolve(ctx, alice, v); err != nil {
			t.Fatal(err)
		}
	}
	s.Close()

	s2 := reopen()
	if got := mustAttempts(t, s2, alice); !reflect.DeepEqual(got, want) {
		t.Fatalf("after reopening:\n got %+v\nwant %+v", got, want)
	}
	if after, err := s2.Progress(ctx, alice); err != nil || !reflect.DeepEqual(before, after) {
		t.Errorf("progress changed: %v\n%+v\n%+v", err, before, after)
	}
	if v, err := s2.SchemaVersion(ctx); err != nil || v != len(pgMigrations()) || len(pgMigrations()) != len(migrations()) {
		t.Errorf("schema version %d (%v); both engines must have every migration", v, err)
	}
	if got, err := s2.Solved(ctx, alice); err != nil || got["unique-error-dlq"].Steps != 2 {
		t.Errorf("solves %+v (%v): the shortest should stay", got, err)
	}
	data, err := s2.Export(ctx, alice)
	if err != nil {
		t.Fatal(err)
	}
	if r, err := s2.Import(ctx, bob, data); err != nil || r.Added != len(want) {
		t.Errorf("import: %+v %v", r, err)
	}

	var wg sync.WaitGroup
	profiles := []string{NewProfileID(), NewProfileID()}
	for _, p := range profiles {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				if _, err := s2.Record(ctx, p, "dup-sources", 1, day.Add(time.Duration(i)*time.Second)); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	for _, p := range profiles {
		if n := len(mustAttempts(t, s2, p)); n != 20 {
			t.Errorf("profile %s kept %d answers of 20", p, n)
		}
	}
}

func TestPostgresStoreRejects(t *testing.T) {
	b := mustLoad(t)
	if _, err := OpenPostgres(context.Background(), "postgres://nobody@127.0.0.1:1/x?sslmode=disable", "progress", b); err == nil {
		t.Error("a server that does not answer opened")
	}
	if _, err := OpenPostgres(context.Background(), "postgres://x", "Bad Schema;", b); err == nil {
		t.Error("a bad schema name opened")
	}
}

// TestPostgresStoresStartingAtOnce: lab servers started together (as
// behind a load balancer) create and migrate the same schema at once; each
// waits for the migration lock, and every one opens. Without the lock,
// two CREATEs of the same table failed with 23505 on PostgreSQL's catalog.
func TestPostgresStoresStartingAtOnce(t *testing.T) {
	b := mustLoad(t)
	url := servers.Postgres(t)
	schema := fmt.Sprintf("progress_%d", rand.Uint32())
	var wg sync.WaitGroup
	errs := make([]error, 6)
	for i := range errs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			s, err := OpenPostgres(context.Background(), url, schema, b)
			if err == nil {
				s.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("server %d: %v", i, err)
		}
	}
}
