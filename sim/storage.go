package sim

import (
	"context"
	"sort"
)

// Storage is what a handler keeps, after a run: the rows and bytes of its
// own tables (the accounts and orders every world has are left out, and
// so is the producer's outbox) and its Redis keys.
type Storage struct {
	Tables []TableStorage `json:"tables"`
	// RedisKeys counts the keys in the world's Redis; RedisBytes is what
	// a real Redis server reports for them (MEMORY USAGE), 0 on
	// miniredis, which does not measure memory.
	RedisKeys  int   `json:"redis_keys"`
	RedisBytes int64 `json:"redis_bytes"`
}

// TableStorage is one table: its rows, and the bytes of the pages that
// hold it and its indexes (SQLite's dbstat; PostgreSQL's
// pg_total_relation_size).
type TableStorage struct {
	Table string `json:"table"`
	Rows  int64  `json:"rows"`
	Bytes int64  `json:"bytes"`
}

// Bytes is the total over the tables.
func (s *Storage) Bytes() int64 {
	var n int64
	for _, t := range s.Tables {
		n += t.Bytes
	}
	return n
}

// Rows is the total over the tables.
func (s *Storage) Rows() int64 {
	var n int64
	for _, t := range s.Tables {
		n += t.Rows
	}
	return n
}

// ownTables are the tables a handler's schema made, in name order.
func (w *world) ownTables() []string {
	names := make([]string, 0, len(w.tables))
	for name := range w.tables {
		if name != "accounts" && name != "orders" && name != "outbox" {
			names = append(names, name)
		}
	}
	sort.Strings(names)
	return names
}

// storedRows counts the rows of the handler's own tables, as the lab.
func (w *world) storedRows() (int64, error) {
	defer w.t.quiet()()
	var total int64
	for _, name := range w.ownTables() {
		var n int64
		if err := w.db.QueryRow(`SELECT COUNT(*) FROM "` + name + `"`).Scan(&n); err != nil {
			return 0, err
		}
		total += n
	}
	return total, nil
}

// storage measures the world's storage, as the lab (no actor traces it).
func (w *world) storage() (*Storage, error) {
	defer w.t.quiet()()
	st := &Storage{}
	for _, name := range w.ownTables() {
		ts := TableStorage{Table: name}
		if err := w.db.QueryRow(`SELECT COUNT(*) FROM "` + name + `"`).Scan(&ts.Rows); err != nil {
			return nil, err
		}
		var err error
		if w.conn.postgres {
			err = w.db.QueryRow(`SELECT pg_total_relation_size(to_regclass(?))`, name).Scan(&ts.Bytes)
		} else {
			// The table's pages and its indexes' (an index's tbl_name is
			// its table).
			err = w.db.QueryRow(`SELECT COALESCE(SUM(pgsize), 0) FROM dbstat WHERE name IN
				(SELECT name FROM sqlite_master WHERE tbl_name = ?)`, name).Scan(&ts.Bytes)
		}
		if err != nil {
			return nil, err
		}
		st.Tables = append(st.Tables, ts)
	}
	keys := w.redisKeys()
	st.RedisKeys = len(keys)
	if w.real {
		ctx := context.Background()
		for _, k := range keys {
			n, err := w.rdb.MemoryUsage(ctx, k).Result()
			if err != nil {
				return nil, err
			}
			st.RedisBytes += n
		}
	}
	return st, nil
}
