package cost

import (
	"context"
	"database/sql"
	"fmt"
	"strings"

	"github.com/idempotency-lab/lab/handlers"
	"github.com/idempotency-lab/lab/sim"
)

// Plans: how the embedded engine runs a handler's statements, in SQLite's
// own words (EXPLAIN QUERY PLAN). A statement whose WHERE can enter an
// index reads a few pages whatever the table holds ("SEARCH orders USING
// INDEX ..."); one that cannot reads every row ("SCAN orders"), so its
// cost grows with the table. statemachine's UPDATE names the order's id
// but not its tenant, and the orders' primary key is (tenant, id): the
// plan is a scan, and in the bench, where every message adds an order,
// its time per message grows with --messages.

// Plan is SQLite's plan for one statement a handler ran.
type Plan struct {
	// Statement is the statement as the handler wrote it, placeholders
	// and all, its whitespace squashed as the lab's trace shows it.
	Statement string `json:"statement"`
	// Steps are the plan's steps, each indented by two spaces a level.
	Steps []string `json:"plan"`
}

// Scans lists the tables the plan reads from end to end ("SCAN t", with
// or without a covering index: every entry is read either way).
func (p Plan) Scans() []string {
	var out []string
	for _, s := range p.Steps {
		if rest, ok := strings.CutPrefix(strings.TrimSpace(s), "SCAN "); ok {
			table, _, _ := strings.Cut(rest, " ")
			out = append(out, table)
		}
	}
	return out
}

// PlanText is plans as the lab shows them: each statement, then its
// steps under it, a blank line between statements.
func PlanText(plans []Plan) string {
	var b strings.Builder
	for i, p := range plans {
		if i > 0 {
			b.WriteString("\n")
		}
		b.WriteString(p.Statement + "\n")
		for _, s := range p.Steps {
			b.WriteString("  └─ " + s + "\n")
		}
	}
	return b.String()
}

// Plans runs one message through a handler on the embedded engine (a
// publish and a delivery), takes the SQL statements its worker ran, in
// the order it first ran them, and asks SQLite for the plan of each in a
// database with the handler's schema, as the engine's worlds start.
// BEGIN, COMMIT and ROLLBACK have no plan, nor has an INSERT of VALUES
// (it reads no table): they are left out.
func Plans(ctx context.Context, handler string) ([]Plan, error) {
	hs, err := sim.Handlers([]string{handler})
	if err != nil {
		return nil, badInput{err}
	}
	if len(hs) != 1 {
		return nil, badInput{fmt.Errorf("plans: %q names %d handlers; give one", handler, len(hs))}
	}
	h := hs[0]
	if h.Handle == nil {
		return nil, badInput{fmt.Errorf("plans: %s is an API handler; plans are for the message handlers", h.Name)}
	}
	s, _ := Script(1, 0)
	run, err := sim.Execute(ctx, s, sim.Options{Handlers: []string{h.Name}})
	if err != nil {
		return nil, fmt.Errorf("plans: %s: %w", h.Name, err)
	}
	var stmts []string
	seen := map[string]bool{}
	for _, tr := range run.Results[0].Trace {
		for _, e := range tr.Events {
			if e.Kind != sim.KindSQL || !strings.HasPrefix(e.Actor, "worker") || seen[e.Text] {
				continue
			}
			switch strings.ToUpper(e.Text) {
			case "BEGIN", "COMMIT", "ROLLBACK":
				continue
			}
			seen[e.Text] = true
			stmts = append(stmts, e.Text)
		}
	}
	if len(stmts) == 0 {
		return nil, badInput{fmt.Errorf("plans: %s runs no SQL, so it has no plan (it keeps its marks in Redis)", h.Name)}
	}
	return explain(ctx, handlers.BaseSchema+h.Schema, stmts)
}

// explain asks a fresh in-memory SQLite database with schema for the plan
// of each statement. Every placeholder is bound to NULL: the plan does not
// depend on the values.
func explain(ctx context.Context, schema string, stmts []string) ([]Plan, error) {
	db, err := sql.Open("sqlite", ":memory:")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	conn, err := db.Conn(ctx) // one connection: the schema lives in it
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, schema); err != nil {
		return nil, fmt.Errorf("plans: the schema: %w", err)
	}
	var plans []Plan
	for _, q := range stmts {
		steps, err := explainOne(ctx, conn, q)
		if err != nil {
			return nil, fmt.Errorf("plans: %s: %w", q, err)
		}
		if len(steps) == 0 {
			continue // an INSERT of VALUES reads no table: SQLite gives it no plan
		}
		plans = append(plans, Plan{Statement: q, Steps: steps})
	}
	return plans, nil
}

func explainOne(ctx context.Context, conn *sql.Conn, q string) ([]string, error) {
	n, err := placeholders(q)
	if err != nil {
		return nil, err
	}
	q = "EXPLAIN QUERY PLAN " + q
	rows, err := conn.QueryContext(ctx, q, make([]any, n)...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	depth := map[int64]int{}
	var steps []string
	for rows.Next() {
		var id, parent, unused int64
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			return nil, err
		}
		d := 0
		if parent != 0 {
			d = depth[parent] + 1
		}
		depth[id] = d
		steps = append(steps, strings.Repeat("  ", d)+detail)
	}
	return steps, rows.Err()
}

// placeholders counts a statement's ? outside its quoted strings and
// names. The modernc driver does not say how many values a statement
// takes (NumInput is -1) and binds none it is not given, so the count is
// read here; the lab's handlers write plain ? only, and another form is
// an error rather than a wrong plan.
func placeholders(q string) (int, error) {
	n := 0
	var quote byte
	for i := 0; i < len(q); i++ {
		c := q[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			}
		case c == '\'' || c == '"' || c == '`':
			quote = c
		case c == '?':
			if i+1 < len(q) && q[i+1] >= '0' && q[i+1] <= '9' {
				return 0, fmt.Errorf("a numbered placeholder (?N): plans read plain ? only")
			}
			n++
		case c == '$' || c == ':' || c == '@':
			if i+1 < len(q) && (q[i+1] == '_' || q[i+1] >= 'a' && q[i+1] <= 'z' || q[i+1] >= 'A' && q[i+1] <= 'Z' || q[i+1] >= '0' && q[i+1] <= '9') {
				return 0, fmt.Errorf("a named placeholder (%c...): plans read plain ? only", c)
			}
		}
	}
	if quote != 0 {
		return 0, fmt.Errorf("an unclosed %c", quote)
	}
	return n, nil
}
