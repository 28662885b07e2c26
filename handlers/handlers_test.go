package handlers

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	_ "modernc.org/sqlite"
)

func mustDB(t *testing.T) *sql.DB {
	t.Helper()
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		t.Fatal(err)
	}
	db.SetMaxOpenConns(1)
	t.Cleanup(func() { db.Close() })
	if _, err := db.Exec(`
		CREATE TABLE u (k TEXT NOT NULL, other TEXT, CONSTRAINT uq UNIQUE (k), CONSTRAINT uq_other UNIQUE (other));
		CREATE TABLE p (k TEXT PRIMARY KEY, v TEXT NOT NULL, n INTEGER CHECK (n > 0));
		CREATE TABLE c (a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b));
		INSERT INTO u (k, other) VALUES ('a', 'o');
		INSERT INTO p (k, v, n) VALUES ('a', 'x', 1);
		INSERT INTO c (a, b) VALUES ('a', 'b');`); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestIsUniqueViolation runs real statements on SQLite: only a duplicate
// in the columns named counts, not the other constraint failures that share
// SQLite's primary code 19, nor a duplicate in another unique index. SQLite
// reports no constraint name, so the name given does not matter here (each
// case gives the one PostgreSQL would report); TestIsUniqueViolationPostgres
// is the other side.
func TestIsUniqueViolation(t *testing.T) {
	db := mustDB(t)
	tests := []struct {
		name       string
		stmt       string
		constraint string
		columns    string
		want       bool
	}{
		{"UNIQUE constraint (extended code 2067)", `INSERT INTO u (k) VALUES ('a')`, "uq", "u.k", true},
		{"PRIMARY KEY (extended code 1555)", `INSERT INTO p (k, v, n) VALUES ('a', 'y', 1)`, "p_pkey", "p.k", true},
		{"composite PRIMARY KEY", `INSERT INTO c (a, b) VALUES ('a', 'b')`, "c_pkey", "c.a, c.b", true},
		{"another UNIQUE index of the same table is no duplicate of this key", `INSERT INTO u (k, other) VALUES ('b', 'o')`, "uq", "u.k", false},
		{"the other index, when it is the one meant", `INSERT INTO u (k, other) VALUES ('b', 'o')`, "uq_other", "u.other", true},
		{"a part of a composite key is not the key", `INSERT INTO c (a, b) VALUES ('a', 'b')`, "c_pkey", "c.a", false},
		{"the same column name in another table", `INSERT INTO p (k, v, n) VALUES ('a', 'y', 1)`, "uq", "u.k", false},
		// SQLite ignores the name: the right name with the wrong columns is
		// no match (on PostgreSQL it would be the other way round).
		{"SQLite reads the columns, not the name", `INSERT INTO u (k) VALUES ('a')`, "uq", "u.other", false},
		{"NOT NULL is code 19 too, but no duplicate", `INSERT INTO p (k, v, n) VALUES ('b', NULL, 1)`, "p_pkey", "p.k", false},
		{"CHECK is code 19 too, but no duplicate", `INSERT INTO p (k, v, n) VALUES ('c', 'z', 0)`, "p_pkey", "p.k", false},
		{"a syntax error", `INSERT INTO nowhere VALUES (1)`, "p_pkey", "p.k", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(tc.stmt)
			if err == nil {
				t.Fatal("statement succeeded; the test needs it to fail")
			}
			if got := IsUniqueViolation(err, tc.constraint, tc.columns); got != tc.want {
				t.Errorf("IsUniqueViolation(%v, %q, %q) = %v, want %v", err, tc.constraint, tc.columns, got, tc.want)
			}
		})
	}
	if IsUniqueViolation(nil, "uq", "u.k") {
		t.Error("IsUniqueViolation(nil) = true")
	}
	// A file written for the older form (the columns alone) still
	// compiles and still works on SQLite.
	if _, err := db.Exec(`INSERT INTO u (k) VALUES ('a')`); !IsUniqueViolation(err, "u.k") {
		t.Errorf("the columns alone: IsUniqueViolation(%v, \"u.k\") = false", err)
	}
	// Without names, any unique index or primary key (a call that always
	// said false would turn every duplicate into a loop), and still
	// nothing else.
	for stmt, want := range map[string]bool{
		`INSERT INTO u (k) VALUES ('a')`:                true,
		`INSERT INTO u (k, other) VALUES ('b', 'o')`:    true,
		`INSERT INTO c (a, b) VALUES ('a', 'b')`:        true,
		`INSERT INTO p (k, v, n) VALUES ('b', NULL, 1)`: false,
		`INSERT INTO nowhere VALUES (1)`:                false,
	} {
		if _, err := db.Exec(stmt); IsUniqueViolation(err) != want {
			t.Errorf("no names: IsUniqueViolation(%v) = %v, want %v", err, !want, want)
		}
	}
	if IsUniqueViolation(nil) {
		t.Error("IsUniqueViolation(nil) with no names = true")
	}
}

// TestCreditToAMissingAccount: every handler that credits the database
// fails when the account does not exist, instead of recording the key and
// acking a credit that never happened. (A script cannot say this: publish
// always creates the account.)
func TestCreditToAMissingAccount(t *testing.T) {
	for _, h := range List() {
		if h.Redis {
			continue // the setnx handlers charge the gateway, not an account row
		}
		t.Run(h.Name, func(t *testing.T) {
			db, err := sql.Open("sqlite", ":memory:")
			if err != nil {
				t.Fatal(err)
			}
			db.SetMaxOpenConns(1)
			t.Cleanup(func() { db.Close() })
			if _, err := db.Exec(BaseSchema + h.Schema); err != nil {
				t.Fatal(err)
			}
			// The order exists, the account does not.
			if _, err := db.Exec(`INSERT INTO orders (tenant, id, status) VALUES ('acme', 'pay-1', 'CREATED')`); err != nil {
				t.Fatal(err)
			}
			d := Deps{DB: db, Now: func() time.Time { return time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC) },
				Point: func(string) {}, Log: func(string, ...any) {}}
			m := Message{Key: "pay-1", Tenant: "acme", Account: "nobody", OrderID: "pay-1", Amount: 100,
				TransportID: "topups/0/1", Delivery: 1}
			err = h.Handle(context.Background(), d, m)
			if err == nil || !strings.Contains(err.Error(), "nothing credited") {
				t.Fatalf("handler returned %v, want an error saying nothing was credited", err)
			}
			// Nothing of the attempt stays behind, so the redelivery tries
			// again, except in marker-first, whose marker commits on its own
			// before the credit: that is its bug, and the redelivery is lost.
			rows, err := db.Query(`SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT IN ('accounts', 'orders')`)
			if err != nil {
				t.Fatal(err)
			}
			var tables []string
			for rows.Next() {
				var name string
				if err := rows.Scan(&name); err != nil {
					t.Fatal(err)
				}
				tables = append(tables, name)
			}
			rows.Close()
			for _, name := range tables {
				var n int
				if err := db.QueryRow(`SELECT COUNT(*) FROM "` + name + `"`).Scan(&n); err != nil {
					t.Fatal(err)
				}
				want := 0
				if h.Name == "marker-first" && name == "processed" {
					want = 1
				}
				if n != want {
					t.Errorf("table %s has %d rows after the failed credit, want %d", name, n, want)
				}
			}
			var status string
			if err := db.QueryRow(`SELECT status FROM orders`).Scan(&status); err != nil || status != "CREATED" {
				t.Errorf("order status %q (%v), want CREATED: the failed credit must roll the payment back", status, err)
			}
		})
	}
}

// TestEveryHandlerIsReadable: each handler's file exists, holds its
// function, and marks both crash points, which the lab shows to students.
func TestEveryHandlerIsReadable(t *testing.T) {
	seen := map[string]bool{}
	for _, h := range List() {
		t.Run(h.Name, func(t *testing.T) {
			if seen[h.Name] {
				t.Fatalf("handler name %q appears twice", h.Name)
			}
			seen[h.Name] = true
			src, err := Source(h.File)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(src, "func "+h.Func+"(") {
				t.Errorf("%s does not define func %s", h.File, h.Func)
			}
			marks := Marks(src)
			for _, p := range []string{BeforeEffect, AfterEffect} {
				if len(marks[p]) != 1 {
					t.Errorf("%s marks %s on %d lines, want exactly 1", h.File, p, len(marks[p]))
				}
			}
			if h.Summary == "" || h.Handle == nil {
				t.Errorf("handler %s lacks a summary or a function", h.Name)
			}
		})
	}
}

func TestSourceRefusesOtherFiles(t *testing.T) {
	for _, name := range []string{"handlers_test.go", "../go.mod", "nope.go", ""} {
		if _, err := Source(name); err == nil {
			t.Errorf("Source(%q) succeeded, want an error", name)
		}
	}
}
