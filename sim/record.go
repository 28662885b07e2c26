package sim

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/redis/go-redis/v9"
	"modernc.org/sqlite"
)

// The SQL recorder wraps modernc.org/sqlite at the database/sql driver level,
// so handlers keep using a plain *sql.DB and *sql.Tx while every statement,
// BEGIN, COMMIT and ROLLBACK they run lands in the trace.

type recConnector struct {
	inner  driver.Connector
	t      *tracer
	shared *sharedConn // made on the first Connect
	// postgres: the connector is pgx's, to a real PostgreSQL: ?
	// placeholders are rebound to $1…, and a crash closes the
	// connection (PostgreSQL then rolls back) instead of rolling back.
	postgres bool
	// For a worker's own PostgreSQL connection (see block.go): admin
	// looks at the server's sessions, around runs each of the handler's
	// calls (world.watched).
	admin  *sql.DB
	around func(call func())
}

// actor is who the trace says cleans up after a dead worker.
func (c *recConnector) actor() string {
	if c.postgres {
		return "postgres"
	}
	return "sqlite"
}

// sharedConn is the world's one SQLite connection (an in-memory database
// lives and dies with its connection). database/sql may hold several
// recConns at once: a worker paused just before a call holds one while
// the other worker runs on another. Each wraps this same connection, which
// is safe because only one worker runs at a time and none is paused
// inside a transaction.
type sharedConn struct {
	inner driver.Conn
	// stmts caches prepared statements by their text. A handler runs the
	// same few statements on every delivery, and SQLite parsing them again
	// each time was a third of a run's CPU. A statement prepared once and
	// reset after each use gives the same results: SQLite itself prepares
	// it again should the schema change.
	stmts map[string]*cachedStmt
	// texts keeps each statement's text as the trace shows it (squash),
	// at most maxTexts of them: the same few, again and again.
	texts  map[string]string
	tx     *recTx       // the open transaction, if any
	pid    uint32       // PostgreSQL's backend for the connection
	around func(func()) // recConnector.around
}

// maxTexts bounds sharedConn.texts: a handler that writes its values
// into its statements' text makes a new one each time.
const maxTexts = 256

// text is query as the trace shows it.
func (c *sharedConn) text(query string) string {
	if t, ok := c.texts[query]; ok {
		return t
	}
	t := squash(query)
	if c.texts == nil {
		c.texts = map[string]string{}
	}
	if len(c.texts) < maxTexts {
		c.texts[query] = t
	}
	return t
}

// run runs one of the handler's calls on the connection.
func (c *sharedConn) run(call func()) {
	if c.around == nil {
		call()
		return
	}
	c.around(call)
}

// newRecConnector makes the connector of a world's SQLite database, its
// connections guarded (guard.go).
func newRecConnector(dsn string, t *tracer) (*recConnector, error) {
	c, err := newGuardedConnector(dsn)
	if err != nil {
		return nil, err
	}
	return &recConnector{inner: c, t: t}, nil
}

func (c *recConnector) Connect(ctx context.Context) (driver.Conn, error) {
	if c.shared == nil {
		conn, err := c.inner.Connect(ctx)
		if err != nil {
			return nil, err
		}
		c.shared = &sharedConn{inner: conn, stmts: map[string]*cachedStmt{}, around: c.around}
		c.shared.pid = backendPID(conn)
	}
	return &recConn{sharedConn: c.shared, t: c.t, postgres: c.postgres}, nil
}

// Driver is the driver d.DB.Driver() returns to a handler: it opens
// nothing (see refusingDriver). database/sql itself connects through
// Connect.
func (c *recConnector) Driver() driver.Driver { return refusingDriver{} }

// close finalizes the cached statements and closes the connection, once
// database/sql has let go of it (recConn.Close leaves it open). SQLite
// keeps a connection with live statements open as a zombie.
func (c *recConnector) close() error {
	if c.shared == nil {
		return nil
	}
	for _, cs := range c.shared.stmts {
		cs.s.Close()
	}
	err := c.shared.inner.Close()
	c.shared = nil
	return err
}

// inTx reports whether a transaction is open on the connection.
func (c *recConnector) inTx() bool { return c.shared != nil && c.shared.tx != nil }

// abandon rolls back the open transaction, if any, as the database does
// when the connection of a worker that died drops; the trace shows it as
// SQLite's. The handler's own Rollback, should it still run, finds the
// transaction done.
func (c *recConnector) abandon(why string) {
	if !c.inTx() {
		return
	}
	tx := c.shared.tx
	c.shared.tx, tx.done = nil, true
	actor := c.t.actor
	c.t.actor = c.actor()
	i := c.t.emit(KindSQL, "ROLLBACK", "")
	var err error
	if c.postgres {
		// A dead process's connection closes, and the server rolls its
		// transaction back: the lab does just that.
		err, why = c.reconnect(), "the connection closed: PostgreSQL rolled the transaction back"
	} else {
		err = tx.inner.Rollback()
	}
	res := sqlResult(nil, err)
	if err == nil {
		res = why
	}
	c.t.result(i, res)
	c.t.actor = actor
}

type recConn struct {
	*sharedConn
	t        *tracer
	postgres bool // rebind ? placeholders (recConnector.postgres)
}

// bind writes a query for the connection's engine.
func (c *recConn) bind(query string) string {
	if c.postgres {
		return Rebind(query)
	}
	return query
}

// cachedStmt is a prepared statement kept for the connection's lifetime.
type cachedStmt struct {
	s    innerStmt
	busy bool // its rows are still open: running it again would reset them
}

// innerStmt is what modernc's statement implements beyond driver.Stmt.
type innerStmt interface {
	driver.Stmt
	driver.StmtExecContext
	driver.StmtQueryContext
}

// innerConn is what modernc's connection implements beyond driver.Conn.
type innerConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
}

func (c *recConn) full() (innerConn, error) {
	ic, ok := c.inner.(innerConn)
	if !ok {
		return nil, errors.New("sqlite connection lacks the context interfaces")
	}
	return ic, nil
}

func (c *recConn) Prepare(query string) (driver.Stmt, error) {
	return c.PrepareContext(context.Background(), query)
}

func (c *recConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	s, err := ic.PrepareContext(ctx, c.bind(query))
	if err != nil {
		return nil, err
	}
	return &recStmt{inner: s, query: query, t: c.t, conn: c.sharedConn}, nil
}

// Close leaves the shared connection open: the other recConns use it, and
// the world closes it last (recConnector.close).
func (c *recConn) Close() error { return nil }

// cached returns the connection's prepared statement for query, preparing
// it on first use, or nil when query is not cacheable or the statement is
// busy; the caller then runs query the ordinary way. Only a single
// statement is cached: a text with a semicolon may be a script (a schema),
// which SQLite would parse again on every run anyway.
func (c *recConn) cached(ctx context.Context, ic innerConn, query string) *cachedStmt {
	if strings.Contains(query, ";") {
		return nil
	}
	cs := c.stmts[query]
	if cs == nil {
		s, err := ic.PrepareContext(ctx, c.bind(query))
		if err != nil {
			return nil // the ordinary way reports the same error
		}
		is, ok := s.(innerStmt)
		if !ok {
			s.Close()
			return nil
		}
		cs = &cachedStmt{s: is}
		c.stmts[query] = cs
	}
	if cs.busy {
		return nil
	}
	return cs
}

// dbImage is what modernc's connection offers to copy a whole database.
type dbImage interface {
	Serialize() ([]byte, error)
	Deserialize([]byte) error
}

// restore replaces the connection's database with a copy of image, a
// database serialized by modernc's Serialize. It is reached through
// database/sql's Conn.Raw, before any statement is cached.
func (c *recConn) restore(image []byte) error {
	d, ok := c.inner.(dbImage)
	if !ok {
		return errors.New("sqlite connection cannot deserialize")
	}
	return d.Deserialize(image)
}

func (c *recConn) Begin() (driver.Tx, error) {
	return c.BeginTx(context.Background(), driver.TxOptions{})
}

func (c *recConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	i, err := c.t.startCall(KindSQL, "BEGIN", "")
	if err != nil {
		return nil, err
	}
	var tx driver.Tx
	c.run(func() { tx, err = ic.BeginTx(ctx, opts) })
	if err != nil {
		c.t.endCall(i, sqlResult(nil, err))
		return nil, err
	}
	rtx := &recTx{inner: tx, t: c.t, conn: c.sharedConn, postgres: c.postgres}
	c.tx = rtx
	c.t.endCall(i, "ok")
	return rtx, nil
}

func (c *recConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	i, err := c.t.startCall(KindSQL, c.text(query), formatArgs(args))
	if err != nil {
		return nil, err
	}
	c.t.writes++ // an Exec may change rows, whatever it says
	var res driver.Result
	if cs := c.cached(ctx, ic, query); cs != nil {
		c.run(func() { res, err = cs.s.ExecContext(ctx, args) })
	} else {
		c.run(func() { res, err = ic.ExecContext(ctx, c.bind(query), args) })
	}
	c.t.endCall(i, sqlResult(res, err))
	return res, err
}

func (c *recConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	ic, err := c.full()
	if err != nil {
		return nil, err
	}
	i, err := c.t.startCall(KindSQL, c.text(query), formatArgs(args))
	if err != nil {
		return nil, err
	}
	if !isSelect(query) {
		c.t.writes++ // INSERT ... RETURNING, or a WITH that ends in an UPDATE
	}
	var rows driver.Rows
	cs := c.cached(ctx, ic, query)
	if cs != nil {
		c.run(func() { rows, err = cs.s.QueryContext(ctx, args) })
	} else {
		c.run(func() { rows, err = ic.QueryContext(ctx, c.bind(query), args) })
	}
	if err != nil {
		c.t.endCall(i, sqlResult(nil, err))
		return nil, err
	}
	if cs != nil {
		cs.busy = true // until the rows are closed
	}
	c.t.endCall(i, "") // the rows write the result when closed
	return &recRows{inner: rows, t: c.t, i: i, stmt: cs}, nil
}

// isSelect reports whether query is a plain SELECT, which changes no row.
func isSelect(query string) bool {
	q := strings.TrimLeftFunc(query, unicode.IsSpace)
	return len(q) >= 6 && strings.EqualFold(q[:6], "SELECT")
}

func (c *recConn) ResetSession(ctx context.Context) error {
	if r, ok := c.inner.(driver.SessionResetter); ok {
		return r.ResetSession(ctx)
	}
	return nil
}

func (c *recConn) IsValid() bool {
	if v, ok := c.inner.(driver.Validator); ok {
		return v.IsValid()
	}
	return true
}

type recTx struct {
	inner driver.Tx
	t     *tracer
	conn  *sharedConn
	done  bool // rolled back for a worker that died (recConnector.abandon)
	// postgres: the lab reads through a connection of its own, which
	// sees the transaction's writes only once it commits.
	postgres bool
}

func (tx *recTx) Commit() error {
	if tx.done {
		if w, ok := tx.t.io.(*world); ok {
			return w.crashedErr()
		}
		return errCrashed
	}
	i, err := tx.t.startCall(KindSQL, "COMMIT", "")
	if err != nil {
		return err // the worker died just before: abandon rolled it back
	}
	tx.conn.tx = nil
	if tx.postgres {
		tx.t.writes++
	}
	tx.conn.run(func() { err = tx.inner.Commit() })
	tx.t.endCall(i, sqlResult(nil, err))
	return err
}

func (tx *recTx) Rollback() error {
	if tx.done {
		return nil // the database rolled it back when the worker died
	}
	i, err := tx.t.startCall(KindSQL, "ROLLBACK", "")
	if err != nil {
		return nil // the worker died just before: abandon rolled it back
	}
	tx.conn.tx = nil
	tx.conn.run(func() { err = tx.inner.Rollback() })
	tx.t.endCall(i, sqlResult(nil, err))
	return err
}

type recStmt struct {
	inner driver.Stmt
	query string
	t     *tracer
	conn  *sharedConn
}

func (s *recStmt) Close() error  { return s.inner.Close() }
func (s *recStmt) NumInput() int { return s.inner.NumInput() }

func (s *recStmt) Exec(args []driver.Value) (driver.Result, error) {
	return s.ExecContext(context.Background(), named(args))
}

func (s *recStmt) Query(args []driver.Value) (driver.Rows, error) {
	return s.QueryContext(context.Background(), named(args))
}

func (s *recStmt) ExecContext(ctx context.Context, args []driver.NamedValue) (driver.Result, error) {
	sc, ok := s.inner.(driver.StmtExecContext)
	if !ok {
		return nil, errors.New("sqlite statement lacks ExecContext")
	}
	i, err := s.t.startCall(KindSQL, s.conn.text(s.query), formatArgs(args))
	if err != nil {
		return nil, err
	}
	s.t.writes++
	var res driver.Result
	s.conn.run(func() { res, err = sc.ExecContext(ctx, args) })
	s.t.endCall(i, sqlResult(res, err))
	return res, err
}

func (s *recStmt) QueryContext(ctx context.Context, args []driver.NamedValue) (driver.Rows, error) {
	sc, ok := s.inner.(driver.StmtQueryContext)
	if !ok {
		return nil, errors.New("sqlite statement lacks QueryContext")
	}
	i, err := s.t.startCall(KindSQL, s.conn.text(s.query), formatArgs(args))
	if err != nil {
		return nil, err
	}
	if !isSelect(s.query) {
		s.t.writes++
	}
	var rows driver.Rows
	s.conn.run(func() { rows, err = sc.QueryContext(ctx, args) })
	if err != nil {
		s.t.endCall(i, sqlResult(nil, err))
		return nil, err
	}
	s.t.endCall(i, "")
	return &recRows{inner: rows, t: s.t, i: i}, nil
}

// recRows counts the rows a query returned and writes the count into the
// query's event when the rows are closed.
type recRows struct {
	inner driver.Rows
	t     *tracer
	i     int
	n     int
	done  bool
	value driver.Value // the first row's value, for a one-column result
	stmt  *cachedStmt  // the cached statement the rows come from, if any
}

func (r *recRows) Columns() []string { return r.inner.Columns() }

func (r *recRows) Next(dest []driver.Value) error {
	err := r.inner.Next(dest)
	if err == nil {
		r.n++
		if r.n == 1 && len(dest) == 1 {
			r.value = dest[0]
		}
	}
	return err
}

func (r *recRows) Close() error {
	if !r.done {
		r.done = true
		res := plural(r.n, "row")
		if r.n == 1 && r.value != nil {
			// SELECT COUNT(*) that found nothing still returns one row: show
			// its value, or "1 row" would read as "found".
			res += ": " + quoteArg(r.value)
		}
		r.t.result(r.i, res)
	}
	err := r.inner.Close() // resets a cached statement for its next use
	if r.stmt != nil {
		r.stmt.busy = false
		r.stmt = nil
	}
	return err
}

func named(args []driver.Value) []driver.NamedValue {
	nv := make([]driver.NamedValue, len(args))
	for i, a := range args {
		nv[i] = driver.NamedValue{Ordinal: i + 1, Value: a}
	}
	return nv
}

func formatArgs(args []driver.NamedValue) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = quoteArg(a.Value)
	}
	return strings.Join(parts, ", ")
}

func sqlResult(res driver.Result, err error) string {
	if err != nil {
		var re *refusedError
		if errors.As(err, &re) {
			return "error: " + re.Error()
		}
		var se *sqlite.Error
		if errors.As(err, &se) {
			return fmt.Sprintf("error %d: %s", se.Code(), se.Error())
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) {
			return fmt.Sprintf("error %s: %s", pe.Code, pe.Message)
		}
		return "error: " + err.Error()
	}
	if res == nil {
		return "ok"
	}
	n, err := res.RowsAffected()
	if err != nil {
		return "ok"
	}
	return plural(int(n), "row") + " affected"
}

func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// redisRecorder is a go-redis hook that records every command the handler
// sends and the reply it got, in redis-cli's notation.
type redisRecorder struct {
	t *tracer
	// scripts counts the Lua scripts run (EVAL, EVALSHA): they weigh on
	// the run's budget (see luaCost).
	scripts *int
}

// countScript counts a command if it runs a Lua script.
func (h redisRecorder) countScript(cmd redis.Cmder) {
	switch strings.ToLower(cmd.Name()) {
	case "eval", "evalsha", "eval_ro", "evalsha_ro":
		if h.scripts != nil {
			*h.scripts++
		}
	}
}

func (h redisRecorder) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		return next(ctx, network, addr)
	}
}

func (h redisRecorder) ProcessHook(next redis.ProcessHook) redis.ProcessHook {
	return func(ctx context.Context, cmd redis.Cmder) error {
		i, err := h.t.startCall(KindRedis, redisCommand(cmd), "")
		if err != nil {
			cmd.SetErr(err)
			return err
		}
		h.countScript(cmd)
		err = next(ctx, cmd)
		h.t.endCall(i, redisReply(cmd, err))
		return err
	}
}

func (h redisRecorder) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return func(ctx context.Context, cmds []redis.Cmder) error {
		if len(cmds) == 0 {
			return next(ctx, cmds)
		}
		// A pipeline is one round trip: one call, whose commands the
		// trace lists one by one.
		names := make([]string, len(cmds))
		for k, cmd := range cmds {
			names[k] = redisCommand(cmd)
		}
		first, err := h.t.startCall(KindRedis, strings.Join(names, "; "), "")
		if err != nil {
			for _, cmd := range cmds {
				cmd.SetErr(err)
			}
			return err
		}
		idx := make([]int, len(cmds))
		if first >= 0 {
			h.t.events[first].Text = names[0]
		}
		idx[0] = first
		for k, cmd := range cmds {
			h.countScript(cmd)
			if k > 0 {
				idx[k] = h.t.emit(KindRedis, names[k], "")
			}
		}
		err = next(ctx, cmds)
		for k, cmd := range cmds {
			h.t.result(idx[k], redisReply(cmd, cmd.Err()))
		}
		h.t.endCall(-1, "")
		return err
	}
}

// isRedisKeyword reports the option words go-redis sends in lower case; the
// trace shows them as the Redis documentation writes them.
func isRedisKeyword(s string) bool {
	switch strings.ToLower(s) {
	case "ex", "px", "nx", "xx", "keepttl":
		return true
	}
	return false
}

func redisCommand(cmd redis.Cmder) string {
	parts := make([]string, len(cmd.Args()))
	for i, a := range cmd.Args() {
		s := redisArg(a)
		if i == 0 || isRedisKeyword(s) {
			s = strings.ToUpper(s)
		}
		parts[i] = s
	}
	return strings.Join(parts, " ")
}

// redisArg writes one argument of a command: bytes as the text they
// hold, as redis-cli shows them (quoted, with escapes, when they are not
// printable text), anything else as fmt prints it.
func redisArg(a any) string {
	b, ok := a.([]byte)
	if !ok {
		return fmt.Sprint(a)
	}
	if s := string(b); utf8.ValidString(s) && !strings.ContainsFunc(s, unicode.IsControl) {
		return s
	}
	return strconv.Quote(string(b))
}

func redisReply(cmd redis.Cmder, err error) string {
	switch {
	case err == redis.Nil:
		return "(nil)"
	case errors.Is(err, io.EOF):
		return "error: connection closed"
	case err != nil:
		return "error: " + err.Error()
	}
	switch c := cmd.(type) {
	case *redis.BoolCmd:
		if c.Val() {
			return "OK"
		}
		return "(nil)"
	case *redis.StatusCmd:
		return c.Val()
	case *redis.IntCmd:
		return fmt.Sprintf("(integer) %d", c.Val())
	case *redis.StringCmd:
		return fmt.Sprintf("%q", c.Val())
	case *redis.Cmd: // EVAL: whatever the script returned
		switch v := c.Val().(type) {
		case int64:
			return fmt.Sprintf("(integer) %d", v)
		case string:
			return fmt.Sprintf("%q", v)
		case nil:
			return "(nil)"
		}
	}
	return "ok"
}
