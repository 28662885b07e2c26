package handlers

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/idempotency-lab/lab/internal/servers"
)

func TestMain(m *testing.M) {
	code := m.Run()
	servers.Stop() // the throwaway PostgreSQL, if a test started it
	os.Exit(code)
}

// translatedLocales are locales whose messages PostgreSQL translates
// (Debian's postgresql ships the catalogues); the test takes the first the
// server's system has (locale -a).
var translatedLocales = []string{"ru_RU.UTF-8", "ru_RU.utf8", "de_DE.UTF-8", "de_DE.utf8"}

// TestIsUniqueViolationPostgres runs real statements on a throwaway
// PostgreSQL (skipped without one, except in CI): a duplicate is known by
// SQLSTATE 23505 and the constraint's name, so it is still a duplicate when
// the DETAIL that names the columns is translated (lc_messages) or left out
// (a role without SELECT, a table under row-level security). Each case
// first checks that its DETAIL is what the case is about, so a server that
// quietly answered in English could not pass the translated cases.
func TestIsUniqueViolationPostgres(t *testing.T) {
	ctx := context.Background()
	db, err := sql.Open("pgx", servers.Postgres(t))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	// Every case sets its own session (lc_messages, role): no connection
	// goes back to the pool to carry it into the next.
	db.SetMaxIdleConns(0)
	if _, err := db.ExecContext(ctx, `
		DROP TABLE IF EXISTS u, p, c, r;
		DROP ROLE IF EXISTS lab_writer;
		CREATE TABLE u (k TEXT NOT NULL, other TEXT, CONSTRAINT uq UNIQUE (k), CONSTRAINT uq_other UNIQUE (other));
		CREATE TABLE p (k TEXT PRIMARY KEY, v TEXT NOT NULL, n INTEGER CHECK (n > 0));
		CREATE TABLE c (a TEXT NOT NULL, b TEXT NOT NULL, PRIMARY KEY (a, b));
		CREATE TABLE r (k TEXT NOT NULL, CONSTRAINT uq_r UNIQUE (k));
		INSERT INTO u (k, other) VALUES ('a', 'o');
		INSERT INTO p (k, v, n) VALUES ('a', 'x', 1);
		INSERT INTO c (a, b) VALUES ('a', 'b');
		INSERT INTO r (k) VALUES ('a');
		ALTER TABLE r ENABLE ROW LEVEL SECURITY;
		CREATE POLICY r_all ON r USING (true) WITH CHECK (true);
		CREATE ROLE lab_writer;
		GRANT INSERT ON u TO lab_writer;
		GRANT SELECT, INSERT ON r TO lab_writer;`); err != nil {
		t.Fatal(err)
	}
	locale, localeErr := translatedLocale(ctx, db)

	// What a case's DETAIL must be, checked before the verdict.
	const (
		english    = "english"    // "Key (k)=(a) already exists."
		translated = "translated" // the same in the locale's language
		none       = "none"       // no DETAIL at all
	)
	tests := []struct {
		name       string
		translate  bool   // SET lc_messages to a non-English locale
		role       string // SET ROLE to this role
		stmt       string
		detail     string // english, translated or none; "" when no duplicate
		constraint string
		columns    string
		want       bool
	}{
		{"UNIQUE constraint, English", false, "", `INSERT INTO u (k) VALUES ('a')`, english, "uq", "u.k", true},
		{"UNIQUE constraint, translated", true, "", `INSERT INTO u (k) VALUES ('a')`, translated, "uq", "u.k", true},
		{"composite PRIMARY KEY by PostgreSQL's default name, translated", true, "", `INSERT INTO c (a, b) VALUES ('a', 'b')`, translated, "c_pkey", "c.a, c.b", true},
		{"PRIMARY KEY by PostgreSQL's default name", false, "", `INSERT INTO p (k, v, n) VALUES ('a', 'y', 1)`, english, "p_pkey", "p.k", true},
		// The role may insert but not read: PostgreSQL keeps the row's
		// values, and with them the whole DETAIL, to itself.
		{"no SELECT right: no DETAIL", false, "lab_writer", `INSERT INTO u (k) VALUES ('a')`, none, "uq", "u.k", true},
		// Row-level security hides the DETAIL even from a role that may read.
		{"row-level security: no DETAIL", false, "lab_writer", `INSERT INTO r (k) VALUES ('a')`, none, "uq_r", "r.k", true},
		{"no DETAIL and translated", true, "lab_writer", `INSERT INTO u (k) VALUES ('a')`, none, "uq", "u.k", true},
		{"another UNIQUE index of the same table is no duplicate of this key, translated", true, "", `INSERT INTO u (k, other) VALUES ('b', 'o')`, translated, "uq", "u.k", false},
		{"the other index, when it is the one meant", false, "", `INSERT INTO u (k, other) VALUES ('b', 'o')`, english, "uq_other", "u.other", true},
		// PostgreSQL reads the name, not the columns: the right columns
		// under another constraint's name are no match (on SQLite the
		// other way round).
		{"PostgreSQL reads the name, not the columns", false, "", `INSERT INTO u (k) VALUES ('a')`, english, "uq_other", "u.k", false},
		{"NOT NULL (23502) is no duplicate", false, "", `INSERT INTO p (k, v, n) VALUES ('b', NULL, 1)`, "", "p_pkey", "p.k", false},
		{"CHECK (23514) is no duplicate", false, "", `INSERT INTO p (k, v, n) VALUES ('c', 'z', 0)`, "", "p_pkey", "p.k", false},
		{"a missing table", false, "", `INSERT INTO nowhere VALUES (1)`, "", "p_pkey", "p.k", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.translate && localeErr != nil {
				servers.Unavailable(t, "locales (and localedef -i ru_RU -f UTF-8 ru_RU.UTF-8)", localeErr)
			}
			conn, err := db.Conn(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if tc.translate {
				if _, err := conn.ExecContext(ctx, `SELECT set_config('lc_messages', $1, false)`, locale); err != nil {
					t.Fatal(err)
				}
			}
			if tc.role != "" {
				if _, err := conn.ExecContext(ctx, `SET ROLE `+tc.role); err != nil {
					t.Fatal(err)
				}
			}
			_, err = conn.ExecContext(ctx, tc.stmt)
			var e *pgconn.PgError
			if !errors.As(err, &e) {
				t.Fatalf("%s: got %v, want a PostgreSQL error", tc.stmt, err)
			}
			if err := checkDetail(e, tc.detail); err != nil {
				t.Fatalf("the case is not what it says: %v (message %q, detail %q)", err, e.Message, e.Detail)
			}
			if got := IsUniqueViolation(err, tc.constraint, tc.columns); got != tc.want {
				t.Errorf("IsUniqueViolation(%v, %q, %q) = %v, want %v (SQLSTATE %s, constraint %q, detail %q)",
					err, tc.constraint, tc.columns, got, tc.want, e.Code, e.ConstraintName, e.Detail)
			}
		})
	}
}

// translatedLocale finds a non-English locale the server accepts for
// lc_messages, and checks that PostgreSQL really translates under it.
func translatedLocale(ctx context.Context, db *sql.DB) (string, error) {
	conn, err := db.Conn(ctx)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	for _, l := range translatedLocales {
		if _, err := conn.ExecContext(ctx, `SELECT set_config('lc_messages', $1, false)`, l); err != nil {
			continue // 22023: the system has no such locale
		}
		_, err := conn.ExecContext(ctx, `SELECT 1/0`)
		var e *pgconn.PgError
		if errors.As(err, &e) && e.Message != "division by zero" {
			return l, nil
		}
		return "", fmt.Errorf("lc_messages = %s: PostgreSQL answers %v, untranslated (no message catalogue?)", l, err)
	}
	return "", fmt.Errorf("PostgreSQL's system has none of the locales %s (locale -a)", strings.Join(translatedLocales, ", "))
}

// checkDetail says whether e's DETAIL is the kind the case is about.
func checkDetail(e *pgconn.PgError, want string) error {
	english := strings.HasPrefix(e.Detail, "Key (")
	switch want {
	case "english":
		if !english {
			return errors.New("want an English DETAIL")
		}
	case "translated":
		if e.Detail == "" || english || strings.Contains(e.Message, "duplicate key") {
			return errors.New("want a translated DETAIL")
		}
	case "none":
		if e.Detail != "" {
			return errors.New("want no DETAIL")
		}
	}
	return nil
}
