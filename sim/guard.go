package sim

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha1"
	"database/sql"
	"database/sql/driver"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/alicebob/miniredis/v2"
	"github.com/alicebob/miniredis/v2/server"
	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// The guards keep a handler inside its world: the in-memory SQLite
// database and the miniredis it is given, and nothing of the machine
// around them. They hold for every world the engine makes (the lab's own
// runs, the sandbox's child, the tests), so a handler written by a
// stranger cannot read, make, delete or overwrite a file through SQL or
// Lua, whatever process it runs in.
//
// SQLite. Each connection gets an authorizer that refuses ATTACH and
// DETACH (VACUUM INTO, and plain VACUUM, attach a database too, so they are
// refused with them), load_extension() and the pragmas that reach past the
// connection; SQLITE_LIMIT_ATTACHED is 0 besides, so an ATTACH fails even
// should the authorizer let one through; temporary tables and indices
// stay in memory (temp_store); and defensive mode keeps ordinary SQL from
// corrupting the database. All of these belong to the connection, not to
// its database, so they survive the Deserialize a world starts with.
// The *sql.DB a handler gets opens nothing else either: its driver's Open
// is refused (refusingDriver), whatever name it is given.
//
// Lua. miniredis runs scripts in a gopher-lua state with loadfile, dofile,
// require, load, loadstring, setfenv, getfenv, module and package, which
// read files; real Redis has none of them. The world's server removes them
// from every script's state before the script runs (luaGuard), so a script
// meets the error real Redis gives: "Script attempted to access
// nonexistent global variable 'loadfile'".

// errOwnDatabase is what opening any other database through a world's
// *sql.DB answers.
var errOwnDatabase = errors.New("a handler may use only the database it is given (d.DB)")

// refusingDriver is the driver a world's *sql.DB reports. database/sql
// never opens through it (a world's pool is made with sql.OpenDB, which
// connects through the connector), so only a handler calling
// d.DB.Driver().Open reaches it, to open some file or server of its
// choosing: refused.
type refusingDriver struct{}

func (refusingDriver) Open(string) (driver.Conn, error) { return nil, errOwnDatabase }

// guardedConnector opens SQLite connections with the guards in place.
type guardedConnector struct{ inner driver.Connector }

// newGuardedConnector makes a connector to dsn, which must not set
// _defensive: the guard turns SQLite's defensive mode on, so no ordinary
// statement can corrupt the database (writes to sqlite_dbpage, to the
// schema, journal_mode=OFF), which SQLite's own code would then read past.
func newGuardedConnector(dsn string) (driver.Connector, error) {
	sep := "?"
	if strings.Contains(dsn, "?") {
		sep = "&"
	}
	c, err := sqlite.NewConnector(dsn + sep + "_defensive=1")
	if err != nil {
		return nil, err
	}
	return guardedConnector{inner: c}, nil
}

func (c guardedConnector) Connect(ctx context.Context) (driver.Conn, error) {
	raw, err := c.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	g, err := guard(ctx, raw)
	if err != nil {
		raw.Close()
		return nil, fmt.Errorf("sqlite: cannot guard the connection: %w", err)
	}
	return g, nil
}

func (guardedConnector) Driver() driver.Driver { return refusingDriver{} }

// sqliteConn is what the guard needs of modernc's connection: what the
// recorder and the templates use, and its authorizer.
type sqliteConn interface {
	innerConn
	dbImage
	driver.SessionResetter
	driver.Validator
	sqlite.AuthorizerRegisterer
}

// guardedConn is one SQLite connection with the guards in place. It
// forwards everything to modernc's connection and names what the
// authorizer refused in the error SQLite returns ("not authorized").
// Nothing outside the package reaches the connection inside it.
type guardedConn struct {
	inner sqliteConn
	// refused is what the authorizer last refused during the call under
	// way, nil if nothing.
	refused atomic.Pointer[string]
	// restoring is set during Deserialize, which reopens the main
	// database by an ATTACH of its own (sqlite3_deserialize): the one
	// ATTACH allowed. No statement of a handler's runs meanwhile.
	restoring atomic.Bool
	// marks says what the statements run on the connection since the
	// last clearMarks did beyond reading and writing rows (markChanged,
	// markHistory): a world whose connection is marked is never reused
	// for another run (worlds.go). compiled is the marks of the
	// statement being prepared now, which its guardedStmt keeps: a
	// statement prepared once and run again marks the connection each
	// time it runs, though SQLite meets the authorizer only once.
	marks, compiled atomic.Uint32
}

// What a statement may do that a reused connection would carry over to
// the next run: change more than rows (a table, an index, a trigger, a
// pragma, a savepoint), or read what earlier statements of the connection
// did (changes(), last_insert_rowid(), total_changes()).
const (
	markChanged uint32 = 1 << iota
	markHistory
)

// markOf is what an action the authorizer sees marks the connection with.
func markOf(action sqlite.AuthorizerActionCode, arg2 string) uint32 {
	switch action {
	case sqlite.AuthSelect, sqlite.AuthRead, sqlite.AuthInsert, sqlite.AuthUpdate, sqlite.AuthDelete,
		sqlite.AuthTransaction, sqlite.AuthRecursive:
		return 0
	case sqlite.AuthFunction:
		switch strings.ToLower(arg2) {
		case "changes", "total_changes", "last_insert_rowid", "changes64", "total_changes64":
			return markHistory
		}
		return 0
	}
	return markChanged
}

// clearMarks forgets what the statements run so far did: the lab's own
// (a world's outbox table) are no handler's.
func (g *guardedConn) clearMarks() { g.marks.Store(0) }

// mark adds marks to the connection's.
func (g *guardedConn) mark(m uint32) {
	if m != 0 {
		g.marks.Or(m)
	}
}

// guard sets temp_store, the limit and the authorizer on a new connection,
// before anything else runs on it.
func guard(ctx context.Context, raw driver.Conn) (*guardedConn, error) {
	in, ok := raw.(sqliteConn)
	if !ok {
		return nil, fmt.Errorf("%T has no authorizer", raw)
	}
	if _, err := in.ExecContext(ctx, "PRAGMA temp_store = MEMORY", nil); err != nil {
		return nil, err
	}
	if err := limitAttached(ctx, raw); err != nil {
		return nil, err
	}
	g := &guardedConn{inner: in}
	if err := in.RegisterAuthorizer(g.authorize); err != nil {
		return nil, err
	}
	return g, nil
}

// limitAttached sets SQLITE_LIMIT_ATTACHED to 0 on raw and checks it took.
// modernc reaches sqlite3_limit only through a *sql.Conn (sqlite.Limit),
// so raw is lent to a pool of its own for the call; the loan's Close
// leaves it open.
func limitAttached(ctx context.Context, raw driver.Conn) error {
	db := sql.OpenDB(lender{raw})
	defer db.Close()
	c, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer c.Close()
	if _, err := sqlite.Limit(c, sqlite3.SQLITE_LIMIT_ATTACHED, 0); err != nil {
		return err
	}
	n, err := sqlite.Limit(c, sqlite3.SQLITE_LIMIT_ATTACHED, -1) // -1 reads the limit
	if err != nil {
		return err
	}
	if n != 0 {
		return fmt.Errorf("SQLITE_LIMIT_ATTACHED is %d after setting it to 0", n)
	}
	return nil
}

type lender struct{ c driver.Conn }

func (l lender) Connect(context.Context) (driver.Conn, error) { return loan{l.c}, nil }
func (lender) Driver() driver.Driver                          { return refusingDriver{} }

// loan is a connection lent to limitAttached's pool: sqlite.Limit finds
// modernc's connection through Unwrap.
type loan struct{ driver.Conn }

func (loan) Close() error          { return nil }
func (l loan) Unwrap() driver.Conn { return l.Conn }

// refusedPragmas are the pragmas a handler may read but not set: where
// temporary files go and whether they are files at all; the heap limits,
// which SQLite keeps for the whole process, every world's; and
// writable_schema, which lets SQL corrupt the database (defensive mode
// ignores it as well).
var refusedPragmas = map[string]bool{
	"temp_store":           true,
	"temp_store_directory": true,
	"data_store_directory": true,
	"soft_heap_limit":      true,
	"hard_heap_limit":      true,
	"writable_schema":      true,
}

// authorize is the connection's authorizer: SQLite calls it while it
// compiles each statement, and again for a statement's own inner ones (the
// ATTACH that VACUUM runs). It must not use the connection.
func (g *guardedConn) authorize(action sqlite.AuthorizerActionCode, arg1, arg2, _, _ string) sqlite.AuthorizerReturnCode {
	var what string
	m := markOf(action, arg2)
	g.compiled.Or(m)
	g.mark(m)
	switch action {
	case sqlite.AuthAttach:
		if g.restoring.Load() && arg1 == "x" { // sqlite3_deserialize's "ATTACH x AS main"
			return sqlite.AuthorizerOK
		}
		what = "ATTACH"
	case sqlite.AuthDetach:
		what = "DETACH"
	case sqlite.AuthFunction:
		if strings.EqualFold(arg2, "load_extension") {
			what = "load_extension"
		}
	case sqlite.AuthPragma:
		if name := strings.ToLower(arg1); arg2 != "" && refusedPragmas[name] {
			what = "PRAGMA " + name
		}
	}
	if what == "" {
		return sqlite.AuthorizerOK
	}
	g.refused.Store(&what)
	return sqlite.AuthorizerDeny
}

// refusedError is a statement the authorizer refused, named.
type refusedError struct {
	what string
	err  error // SQLite's own: "not authorized"
}

func (e *refusedError) Error() string {
	why := "a handler may use only the database it is given (d.DB)"
	switch {
	case e.what == "load_extension":
		return "load_extension() is refused: a handler may not load code into SQLite"
	case strings.HasPrefix(e.what, "PRAGMA"):
		why = "the lab sets it for every world"
	}
	return e.what + " is refused: " + why
}

func (e *refusedError) Unwrap() error { return e.err }

var (
	vacuumInto = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?is)\bVACUUM\b[^;]*\bINTO\b`) })
	vacuum     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)\bVACUUM\b`) })
)

// start clears what the authorizer refused, before a call.
func (g *guardedConn) start() { g.refused.Store(nil) }

// named returns err naming what the authorizer refused during the call on
// query, or err itself if it refused nothing.
func (g *guardedConn) named(query string, err error) error {
	p := g.refused.Swap(nil)
	if err == nil || p == nil {
		return err
	}
	what := *p
	if what == "ATTACH" {
		// VACUUM attaches its output (VACUUM INTO) or a scratch database
		// (VACUUM) itself: the handler wrote a VACUUM, not an ATTACH.
		switch {
		case vacuumInto().MatchString(query):
			what = "VACUUM INTO"
		case vacuum().MatchString(query):
			what = "VACUUM"
		}
	}
	return &refusedError{what: what, err: err}
}

func (g *guardedConn) Prepare(query string) (driver.Stmt, error) {
	return g.PrepareContext(context.Background(), query)
}

func (g *guardedConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	g.start()
	g.compiled.Store(0)
	s, err := g.inner.PrepareContext(ctx, query)
	if err != nil {
		return nil, g.named(query, err)
	}
	is, ok := s.(innerStmt)
	if !ok {
		s.Close()
		return nil, fmt.Errorf("sqlite statement %T lacks the context interfaces", s)
	}
	return &guardedStmt{innerStmt: is, g: g, query: query, marks: g.compiled.Load()}, nil
}

// guardedStmt is a prepared statement of a guarded connection. SQLite may
// meet the authorizer while it runs one, not only while it prepares it: a
// VACUUM prepares its inner ATTACH as it runs, and a statement is prepared
// again after the schema changed. Its errors name the refusal too.
type guardedStmt struct {
	innerStmt
	g     *guardedConn
	query string
	marks uint32 // what it marks its connection with, each time it runs
}

func (s *guardedStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *guardedStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *guardedStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	s.g.start()
	s.g.mark(s.marks)
	r, err := s.innerStmt.ExecContext(ctx, args)
	return r, s.g.named(s.query, err)
}

func (s *guardedStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	s.g.start()
	s.g.mark(s.marks)
	r, err := s.innerStmt.QueryContext(ctx, args)
	return r, s.g.named(s.query, err)
}

func (g *guardedConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	g.start()
	r, err := g.inner.ExecContext(ctx, query, args)
	return r, g.named(query, err)
}

func (g *guardedConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	g.start()
	r, err := g.inner.QueryContext(ctx, query, args)
	return r, g.named(query, err)
}

func (g *guardedConn) Begin() (driver.Tx, error) {
	return g.BeginTx(context.Background(), driver.TxOptions{})
}

func (g *guardedConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	return g.inner.BeginTx(ctx, opts)
}

func (g *guardedConn) Close() error                           { return g.inner.Close() }
func (g *guardedConn) Serialize() ([]byte, error)             { return g.inner.Serialize() }
func (g *guardedConn) ResetSession(ctx context.Context) error { return g.inner.ResetSession(ctx) }
func (g *guardedConn) IsValid() bool                          { return g.inner.IsValid() }

// Deserialize replaces the main database with a copy of image. The limit
// does not apply to the ATTACH inside (SQLite reopens main, it attaches
// nothing), the authorizer lets it through (restoring), and the guards
// stay: they belong to the connection.
func (g *guardedConn) Deserialize(image []byte) error {
	g.restoring.Store(true)
	defer g.restoring.Store(false)
	return g.inner.Deserialize(image)
}

// luaPrelude runs first in every script the world's Redis runs: it takes
// out of the script's state what real Redis' Lua does not have. miniredis'
// own preamble has already made reading a missing global an error (and
// removed debug), so a script that names any of these, however it spells
// the name (_G["load".."file"] too), meets real Redis' error. print writes
// to the process' standard output; real Redis' goes to its log, which a
// script never sees: here it goes nowhere.
//
// It stands on the script's first line and ends in "end;", so the
// script's line numbers stay as written and nothing in the script can join
// its last statement.
const luaPrelude = "do loadfile=nil dofile=nil load=nil loadstring=nil require=nil module=nil package=nil " +
	"setfenv=nil getfenv=nil _printregs=nil print=function() end end;"

// luaGuard is the world's Redis server's pre-hook: it makes each script run
// after luaPrelude, on every connection to the server, the handler's own
// go-redis clients included.
//
// miniredis builds a fresh Lua state for each script inside EVAL and
// EVALSHA and offers no hook into it, so the guard hands miniredis the
// script with the prelude in front (the guarded text) and keeps what
// clients see as it would be for the script as sent: SHA1 digests are of
// the script as sent, the cache is miniredis' own. It remembers, per
// digest of a script as sent, the script; EVALSHA and SCRIPT EXISTS of
// that digest ask miniredis about the guarded text's digest instead, and
// SCRIPT LOAD loads the guarded text and answers the digest of the script
// as sent. miniredis' cache so holds only guarded texts.
//
// What differs from miniredis alone: a compile error on a script's first
// line gives a column counted with the prelude in front, and a SCRIPT
// LOAD inside MULTI answers the guarded text's digest in EXEC's reply.
type luaGuard struct {
	srv   *server.Server
	mu    sync.Mutex
	known map[string]string // digest of a script as sent -> the script
}

// newRedis starts a miniredis with the Lua guard on its server. The
// server exists once a first connection is made; the guard is on before
// any client of the world's connects.
func newRedis() (*miniredis.Miniredis, error) {
	m := miniredis.NewMiniRedis()
	c, err := m.Dial()
	if err != nil {
		m.Close()
		return nil, err
	}
	c.Close()
	g := &luaGuard{srv: m.Server(), known: map[string]string{}}
	// Nothing else may set the server's pre-hook (miniredis' SetError
	// does): it would replace the guard.
	g.srv.SetPreHook(g.hook)
	return m, nil
}

func sha1Hex(s string) string {
	h := sha1.Sum([]byte(s))
	return hex.EncodeToString(h[:])
}

func (g *luaGuard) remember(script string) {
	g.mu.Lock()
	g.known[sha1Hex(script)] = script
	g.mu.Unlock()
}

// guarded returns the digest of the guarded text of the script whose
// digest as sent is sha, or sha itself for a script the guard never saw.
func (g *luaGuard) guarded(sha string) string {
	g.mu.Lock()
	script, ok := g.known[sha]
	g.mu.Unlock()
	if !ok {
		// Nothing was cached under sha but a guarded text (see luaGuard):
		// miniredis runs that, or answers NOSCRIPT.
		return sha
	}
	return sha1Hex(luaPrelude + script)
}

// hook sees every command before miniredis runs it; true means it has
// answered the command itself.
func (g *luaGuard) hook(c *server.Peer, cmd string, args ...string) bool {
	switch cmd {
	case "EVAL", "EVAL_RO":
		if len(args) == 0 || strings.HasPrefix(args[0], luaPrelude) {
			return false // miniredis answers the missing script; a guarded text runs as it is
		}
		g.remember(args[0])
		g.srv.Dispatch(c, append([]string{cmd, luaPrelude + args[0]}, args[1:]...))
		return true
	case "EVALSHA", "EVALSHA_RO":
		if len(args) == 0 {
			return false
		}
		sha := g.guarded(args[0])
		if sha == args[0] {
			return false
		}
		// Dispatch comes back through the hook, which then finds sha
		// unknown and lets miniredis run the guarded text.
		g.srv.Dispatch(c, append([]string{cmd, sha}, args[1:]...))
		return true
	case "SCRIPT":
		if len(args) == 0 {
			return false
		}
		switch strings.ToUpper(args[0]) {
		case "LOAD":
			if len(args) != 2 || strings.HasPrefix(args[1], luaPrelude) {
				return false
			}
			g.remember(args[1])
			g.load(c, args[1])
			return true
		case "EXISTS":
			shas, changed := make([]string, len(args)-1), false
			for i, sha := range args[1:] {
				shas[i] = g.guarded(sha)
				changed = changed || shas[i] != sha
			}
			if !changed {
				return false
			}
			g.srv.Dispatch(c, append([]string{cmd, args[0]}, shas...))
			return true
		}
	case "FUNCTION", "FCALL", "FCALL_RO":
		// Lua functions (Redis 7) run in a state of their own, which the
		// guard does not reach: refused, should miniredis ever offer them.
		if g.srv.IsRegisteredCommand(cmd) {
			c.WriteError("ERR " + cmd + " is not offered by the lab's Redis: use EVAL")
			return true
		}
	}
	return false
}

// load runs SCRIPT LOAD of the guarded text for c and answers c the
// digest of the script as sent. miniredis answers on a peer of the guard's
// that shares c's connection state (a transaction, a script's call), and
// the guard passes its answer on unless it is the guarded text's digest.
func (g *luaGuard) load(c *server.Peer, script string) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	p := server.NewPeer(w)
	p.Ctx, p.Resp3 = c.Ctx, c.Resp3
	g.srv.Dispatch(p, []string{"SCRIPT", "LOAD", luaPrelude + script})
	w.Flush()
	c.Ctx = p.Ctx // made by miniredis if c had none yet
	guarded := sha1Hex(luaPrelude + script)
	if buf.String() == fmt.Sprintf("$%d\r\n%s\r\n", len(guarded), guarded) {
		c.WriteBulk(sha1Hex(script))
		return
	}
	c.WriteRaw(buf.String())
}
