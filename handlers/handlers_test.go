package handlers

import (
	"database/sql"
	"strings"
	"testing"

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
		CREATE TABLE u (k TEXT NOT NULL, CONSTRAINT uq UNIQUE (k));
		CREATE TABLE p (k TEXT PRIMARY KEY, v TEXT NOT NULL, n INTEGER CHECK (n > 0));
		INSERT INTO u (k) VALUES ('a');
		INSERT INTO p (k, v, n) VALUES ('a', 'x', 1);`); err != nil {
		t.Fatal(err)
	}
	return db
}

// TestIsUniqueViolation runs real statements: only a duplicate key counts,
// not the other constraint failures that share SQLite's primary code 19.
func TestIsUniqueViolation(t *testing.T) {
	db := mustDB(t)
	tests := []struct {
		name string
		stmt string
		want bool
	}{
		{"UNIQUE constraint (extended code 2067)", `INSERT INTO u (k) VALUES ('a')`, true},
		{"PRIMARY KEY (extended code 1555)", `INSERT INTO p (k, v, n) VALUES ('a', 'y', 1)`, true},
		{"NOT NULL is code 19 too, but no duplicate", `INSERT INTO p (k, v, n) VALUES ('b', NULL, 1)`, false},
		{"CHECK is code 19 too, but no duplicate", `INSERT INTO p (k, v, n) VALUES ('c', 'z', 0)`, false},
		{"a syntax error", `INSERT INTO nowhere VALUES (1)`, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := db.Exec(tc.stmt)
			if err == nil {
				t.Fatal("statement succeeded; the test needs it to fail")
			}
			if got := isUniqueViolation(err); got != tc.want {
				t.Errorf("isUniqueViolation(%v) = %v, want %v", err, got, tc.want)
			}
		})
	}
	if isUniqueViolation(nil) {
		t.Error("isUniqueViolation(nil) = true")
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
