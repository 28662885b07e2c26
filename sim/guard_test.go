package sim

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"
	"modernc.org/sqlite"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/script"
)

// The guards (guard.go), tried as a hostile handler would: through the
// d.DB and d.Redis a world gives it, in a run of the engine.

// secret is what the files the attacks aim at hold: it must never reach a
// result.
const secret = "s3cr3t-9f1c2e"

// guardRun runs one delivery of a custom handler and returns the result.
func guardRun(t *testing.T, redisToo bool, handle handlers.Func) Result {
	t.Helper()
	s, err := script.Parse("publish a amount=1\ndeliver\n")
	if err != nil {
		t.Fatal(err)
	}
	h := handlers.Info{Name: "hostile", Redis: redisToo, Handle: handle}
	run, err := Execute(context.Background(), s, Options{Custom: []handlers.Info{h}})
	if err != nil {
		t.Fatalf("Execute: %v", err)
	}
	return run.Results[0]
}

// resultText is everything a result shows: its trace, its settlement and
// the world's final state.
func resultText(t *testing.T, r Result) string {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	f, err := json.Marshal(r.Final)
	if err != nil {
		t.Fatal(err)
	}
	return string(b) + string(f)
}

// secretDB writes an SQLite file holding secret, through the driver's own
// sql.Open (the test is not a handler).
func secretDB(t *testing.T, path string) {
	t.Helper()
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, err := db.Exec(`CREATE TABLE secret(v TEXT); INSERT INTO secret VALUES (?)`, secret); err != nil {
		t.Fatal(err)
	}
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

func TestGuardSQLite(t *testing.T) {
	dir := t.TempDir()
	secretPath := filepath.Join(dir, "progress.db")
	secretDB(t, secretPath)
	before, err := os.ReadFile(secretPath)
	if err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(dir, "missing.db")
	// SQLite deletes a hot journal next to a missing or empty database
	// when it opens it: the journal must survive the attack untouched.
	journal := missing + "-journal"
	if err := os.WriteFile(journal, []byte("journal "+secret), 0o600); err != nil {
		t.Fatal(err)
	}
	vacuumOut := filepath.Join(dir, "copy.db")

	cases := []struct {
		name string
		sql  []string // run in order; the last one must fail
		want string   // in the last statement's error
		// absent are paths that must not exist after the run.
		absent []string
		// query runs every statement with QueryContext; otherwise only
		// a SELECT does, the others with ExecContext.
		query bool
	}{
		// The ATTACH is refused, so the SELECT after it finds no
		// database p: the handler never sees the secret.
		{"ATTACH of a file holding a secret",
			[]string{"ATTACH DATABASE 'file:" + secretPath + "?mode=ro' AS p", "SELECT v FROM p.secret"},
			"no such table: p.secret", nil, false},
		{"the ATTACH itself", []string{"ATTACH DATABASE '" + secretPath + "' AS p"},
			"ATTACH is refused: a handler may use only the database it is given (d.DB)", nil, false},
		{"ATTACH of a missing path", []string{"ATTACH '" + missing + "' AS m"},
			"ATTACH is refused", []string{missing}, false},
		// As for a write over a device: the ATTACH never opens it, and
		// the write after it finds no database b.
		{"ATTACH then a write to it", []string{"ATTACH '" + missing + "' AS b", "CREATE TABLE b.t(x)"},
			"unknown database b", []string{missing}, false},
		// The ATTACH in the middle of a script is refused as well.
		{"ATTACH inside a script of several statements",
			[]string{"CREATE TABLE mine(x); ATTACH '" + missing + "' AS m; SELECT 1"},
			"ATTACH is refused", []string{missing}, false},
		// VACUUM INTO attaches its output itself: refused as VACUUM INTO.
		{"VACUUM INTO", []string{"VACUUM INTO '" + vacuumOut + "'"},
			"VACUUM INTO is refused", []string{vacuumOut}, false},
		// A plain VACUUM attaches a scratch database too: refused with it
		// (an in-memory database has nothing to compact anyway).
		{"VACUUM", []string{"VACUUM"}, "VACUUM is refused", nil, false},
		{"VACUUM INTO through a query", []string{"VACUUM INTO '" + vacuumOut + "'"},
			"VACUUM INTO is refused", []string{vacuumOut}, true},
		{"ATTACH through a query", []string{"ATTACH '" + missing + "' AS m"},
			"ATTACH is refused", []string{missing}, true},
		// There is nothing attached to detach; refused all the same.
		{"DETACH", []string{"DETACH DATABASE temp"}, "DETACH is refused", nil, false},
		{"load_extension", []string{"SELECT load_extension('" + filepath.Join(dir, "evil.so") + "')"},
			"load_extension() is refused", nil, false},
		{"temporary files", []string{"PRAGMA temp_store = FILE"}, "PRAGMA temp_store is refused", nil, false},
		{"the directory of temporary files", []string{"PRAGMA temp_store_directory = '" + dir + "'"},
			"PRAGMA temp_store_directory is refused", nil, false},
		// Defensive mode: no statement writes the database's pages
		// directly (a corrupt database makes SQLite read past its pages).
		{"a write to the raw pages", []string{"UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1"},
			"read-only", nil, false},
		{"a heap limit for the whole process", []string{"PRAGMA hard_heap_limit = 1"},
			"PRAGMA hard_heap_limit is refused", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var errs []error
			r := guardRun(t, false, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
				for _, q := range c.sql {
					if !c.query && !strings.HasPrefix(q, "SELECT") {
						_, err := d.DB.ExecContext(ctx, q)
						errs = append(errs, err)
						continue
					}
					rows, err := d.DB.QueryContext(ctx, q)
					if err == nil {
						// Were the secret readable, the handler would log it.
						for rows.Next() {
							var v any
							rows.Scan(&v)
							d.Log("read %v", v)
						}
						err = rows.Close()
					}
					errs = append(errs, err)
				}
				return nil
			})
			if last := errs[len(errs)-1]; last == nil || !strings.Contains(last.Error(), c.want) {
				t.Errorf("%s: got %v, want an error with %q", c.sql[len(c.sql)-1], last, c.want)
			}
			text := resultText(t, r)
			if strings.Contains(text, secret) {
				t.Errorf("the secret is in the result:\n%s", text)
			}
			// The trace names what was refused, as the handler saw it.
			if strings.Contains(c.want, "refused") && !strings.Contains(text, c.want) {
				t.Errorf("no %q in the trace:\n%s", c.want, text)
			}
			for _, p := range c.absent {
				if exists(p) {
					t.Errorf("%s exists after the run", p)
				}
			}
		})
	}
	after, err := os.ReadFile(secretPath)
	if err != nil || string(after) != string(before) {
		t.Errorf("the attacked database changed (%v)", err)
	}
	if b, err := os.ReadFile(journal); err != nil || string(b) != "journal "+secret {
		t.Errorf("the journal next to the missing path is gone or changed: %q, %v", b, err)
	}
}

// A world's database keeps temporary storage in memory, and the handler's
// ordinary statements still work.
func TestGuardSQLiteAllows(t *testing.T) {
	var store int
	var errs []error
	guardRun(t, false, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		errs = append(errs, d.DB.QueryRowContext(ctx, "PRAGMA temp_store").Scan(&store))
		for _, q := range []string{
			"CREATE TEMP TABLE scratch(x)",
			"INSERT INTO scratch VALUES (1)",
			"PRAGMA foreign_keys = ON",
			"UPDATE accounts SET balance = balance + 1 WHERE id = 'none'",
		} {
			_, err := d.DB.ExecContext(ctx, q)
			errs = append(errs, err)
		}
		return nil
	})
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if store != 2 { // 2 is MEMORY
		t.Errorf("temp_store is %d, want 2 (memory)", store)
	}
}

// d.DB opens no other database, whatever its driver is asked for, and the
// connection inside it offers the handler nothing of SQLite's beyond SQL.
func TestGuardDriverOpen(t *testing.T) {
	dir := t.TempDir()
	secretPath := filepath.Join(dir, "progress.db")
	secretDB(t, secretPath)
	var openErrs []error
	var exposed []string
	r := guardRun(t, false, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		if _, err := d.DB.ExecContext(ctx, `UPDATE accounts SET balance = balance + ? WHERE id = ?`, m.Amount, m.Account); err != nil {
			return err
		}
		for _, name := range []string{secretPath, "file:" + secretPath + "?mode=ro", ":memory:", ""} {
			c, err := d.DB.Driver().Open(name)
			if err == nil {
				c.Close()
			}
			openErrs = append(openErrs, err)
		}
		conn, err := d.DB.Conn(ctx)
		if err != nil {
			return err
		}
		defer conn.Close()
		return conn.Raw(func(dc any) error {
			if _, ok := dc.(sqlite.AuthorizerRegisterer); ok {
				exposed = append(exposed, "its authorizer")
			}
			if _, ok := dc.(interface{ Unwrap() driver.Conn }); ok {
				exposed = append(exposed, "the connection inside")
			}
			if _, ok := dc.(interface {
				NewBackup(string) (*sqlite.Backup, error)
			}); ok {
				exposed = append(exposed, "backups to a file")
			}
			return nil
		})
	})
	for _, err := range openErrs {
		if err == nil || err.Error() != "a handler may use only the database it is given (d.DB)" {
			t.Errorf("Driver().Open: got %v, want the refusal", err)
		}
	}
	if len(exposed) > 0 {
		t.Errorf("the handler's connection exposes %s", strings.Join(exposed, ", "))
	}
	if r.Verdict != OK { // the guard costs the handler nothing else
		t.Errorf("verdict %s: %s", r.Verdict, r.Reason)
	}
}

// The limit holds on its own: with the authorizer gone, and after a
// Deserialize as a world starts with, ATTACH still fails.
func TestGuardLimitAttached(t *testing.T) {
	ctx := context.Background()
	tmpl, err := newTemplate(handlers.BaseSchema)
	if err != nil {
		t.Fatal(err)
	}
	c, err := newGuardedConnector(":memory:")
	if err != nil {
		t.Fatal(err)
	}
	dc, err := c.Connect(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer dc.Close()
	g := dc.(*guardedConn)
	if err := g.Deserialize(tmpl.image); err != nil {
		t.Fatal(err)
	}
	if err := g.inner.RegisterAuthorizer(nil); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "out.db")
	for _, q := range []string{"ATTACH '" + out + "' AS o", "VACUUM INTO '" + out + "'"} {
		_, err := g.ExecContext(ctx, q, nil)
		if err == nil || !strings.Contains(err.Error(), "too many attached databases - max 0") {
			t.Errorf("%s without the authorizer: got %v, want the limit's error", q, err)
		}
	}
	if exists(out) {
		t.Errorf("%s exists", out)
	}
}

func TestGuardLua(t *testing.T) {
	dir := t.TempDir()
	// A Lua file that hands back the secret once run, and an env file.
	lua := filepath.Join(dir, "secretmod.lua")
	if err := os.WriteFile(lua, []byte(`return "`+secret+`"`), 0o600); err != nil {
		t.Fatal(err)
	}
	env := filepath.Join(dir, ".env")
	if err := os.WriteFile(env, []byte(`TOKEN="`+secret+`"`), 0o600); err != nil {
		t.Fatal(err)
	}
	nonexistent := func(name string) string {
		return "Script attempted to access nonexistent global variable '" + name + "'"
	}
	cases := []struct {
		name, script string
		want         string // in the error; "" means the script succeeds
		reply        any    // what a script that succeeds returns
	}{
		{"loadfile", `return loadfile(ARGV[1])()`, nonexistent("loadfile"), nil},
		{"loadfile of an env file", `local f, env = loadfile(ARGV[2]), {} setfenv(f, env) f() return env.TOKEN`, nonexistent("loadfile"), nil},
		{"dofile", `return dofile(ARGV[1])`, nonexistent("dofile"), nil},
		{"require", `return require("secretmod")`, nonexistent("require"), nil},
		{"package.path", `package.path = ARGV[3] .. "/?.lua" return 1`, nonexistent("package"), nil},
		{"module", `module("m") return 1`, nonexistent("module"), nil},
		{"load", `local f = load(function() return nil end) return 1`, nonexistent("load"), nil},
		{"loadstring", `return loadstring("return loadfile")()(ARGV[1])()`, nonexistent("loadstring"), nil},
		{"getfenv", `return getfenv(0).loadfile(ARGV[1])()`, nonexistent("getfenv"), nil},
		{"setfenv", `setfenv(1, {}) return 1`, nonexistent("setfenv"), nil},
		// miniredis' own preamble removes debug.
		{"debug", `return debug.getregistry()`, nonexistent("debug"), nil},
		{"a name spelled at run time", `return _G["load" .. "file"](ARGV[1])()`, nonexistent("loadfile"), nil},
		// Removed, not hidden: the globals table itself has it no more.
		{"rawget of the globals", `if rawget(_G, "load" .. "file") == nil then return "gone" end return "there"`, "", "gone"},
		// print is there, and writes nowhere.
		{"print", `print(ARGV[1]) return 1`, "", int64(1)},
		{"an ordinary script", `redis.call("SET", KEYS[1], ARGV[1]) return redis.call("GET", KEYS[1])`, "", lua},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var got any
			var err error
			r := guardRun(t, true, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
				got, err = d.Redis.Eval(ctx, c.script, []string{"k"}, lua, env, dir).Result()
				return nil
			})
			switch {
			case c.want == "" && (err != nil || got != c.reply):
				t.Errorf("got %v, %v; want %v", got, err, c.reply)
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("got %v, %v; want an error with %q", got, err, c.want)
			}
			if text := resultText(t, r); strings.Contains(text, secret) {
				t.Errorf("the secret is in the result:\n%s", text)
			}
		})
	}
}

// The guard is the server's: a script sent by EVALSHA, inside MULTI, or
// from a client the handler makes itself meets it too, and the script
// cache answers as Redis does, by the digest of the script as sent.
func TestGuardLuaPaths(t *testing.T) {
	dir := t.TempDir()
	lua := filepath.Join(dir, "secretmod.lua")
	if err := os.WriteFile(lua, []byte(`return "`+secret+`"`), 0o600); err != nil {
		t.Fatal(err)
	}
	const attack = `return loadfile(ARGV[1])()`
	const plain = `return ARGV[1]`
	refused := "nonexistent global variable 'loadfile'"
	type step struct {
		name string
		do   func(ctx context.Context, d handlers.Deps) (any, error)
		want string // in the error, or the reply's text
	}
	steps := []step{
		{"SCRIPT LOAD answers the digest of the script as sent", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.ScriptLoad(ctx, attack).Result()
		}, sha1Hex(attack)},
		{"EVALSHA of it", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.EvalSha(ctx, sha1Hex(attack), nil, lua).Result()
		}, refused},
		{"SCRIPT EXISTS of it", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.ScriptExists(ctx, sha1Hex(attack), sha1Hex(plain)).Result()
		}, "[true false]"},
		// Not cached yet: Redis answers NOSCRIPT, and go-redis' Script
		// then sends EVAL.
		{"EVALSHA before any EVAL", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.EvalSha(ctx, sha1Hex(plain), nil, "one").Result()
		}, "NOSCRIPT"},
		{"EVAL caches", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.Eval(ctx, plain, nil, "two").Result()
		}, "two"},
		{"EVALSHA after EVAL", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.EvalSha(ctx, sha1Hex(plain), nil, "three").Result()
		}, "three"},
		{"a Script's Run", func(ctx context.Context, d handlers.Deps) (any, error) {
			return redis.NewScript(plain).Run(ctx, d.Redis, nil, "four").Result()
		}, "four"},
		{"MULTI", func(ctx context.Context, d handlers.Deps) (any, error) {
			var cmd *redis.Cmd
			_, err := d.Redis.TxPipelined(ctx, func(p redis.Pipeliner) error {
				cmd = p.Eval(ctx, attack, nil, lua)
				return nil
			})
			if err == nil {
				err = cmd.Err()
			}
			return cmd.Val(), err
		}, refused},
		{"a client of the handler's own", func(ctx context.Context, d handlers.Deps) (any, error) {
			own := redis.NewClient(&redis.Options{Addr: "127.0.0.1:6379", Dialer: d.Redis.Options().Dialer,
				Protocol: 2, DisableIdentity: true})
			defer own.Close()
			return own.Eval(ctx, attack, nil, lua).Result()
		}, refused},
		{"SCRIPT FLUSH", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.ScriptFlush(ctx).Result()
		}, "OK"},
		{"EVALSHA after the flush", func(ctx context.Context, d handlers.Deps) (any, error) {
			return d.Redis.EvalSha(ctx, sha1Hex(plain), nil, "five").Result()
		}, "NOSCRIPT"},
	}
	got := make([]string, len(steps))
	r := guardRun(t, true, func(ctx context.Context, d handlers.Deps, m handlers.Message) error {
		for i, s := range steps {
			v, err := s.do(ctx, d)
			if err != nil {
				got[i] = err.Error()
			} else {
				b, _ := json.Marshal(v)
				got[i] = strings.Trim(string(b), `"`)
				if _, ok := v.([]bool); ok {
					got[i] = strings.ReplaceAll(strings.Trim(string(b), "[]"), ",", " ")
					got[i] = "[" + got[i] + "]"
				}
			}
		}
		return nil
	})
	for i, s := range steps {
		if !strings.Contains(got[i], s.want) {
			t.Errorf("%s: got %q, want %q", s.name, got[i], s.want)
		}
	}
	if text := resultText(t, r); strings.Contains(text, secret) {
		t.Errorf("the secret is in the result:\n%s", text)
	}
}
