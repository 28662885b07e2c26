package room

import (
	"errors"
	"sync"
	"time"
)

// store keeps the rooms' records: in this process's memory (memStore) or
// in Redis (redisStore), where several lab servers share them.
type store interface {
	// create saves a new room: ErrTooManyRooms when Config.MaxRooms are
	// open, errCodeTaken when its code is in use.
	create(r *record) error
	// view calls f with the room's record, which f must not change.
	// ErrNotFound when there is no such room or it has been idle too long.
	view(code string, f func(*record) error) error
	// update calls f with the room's record and saves what f made of it,
	// as one step: no other update of the room comes in between. An
	// error from f leaves the room as it was, and is returned.
	update(code string, f func(*record) error) error
	// count is how many rooms are open.
	count() int
	// sweep drops the rooms idle longer than Config.IdleTTL and returns
	// how many.
	sweep() int
}

// errCodeTaken: a new room drew the code of one open already.
var errCodeTaken = errors.New("room code in use")

// memStore keeps the records in memory. A room is idle when Config.Now
// has moved IdleTTL past its last change.
type memStore struct {
	cfg   Config
	mu    sync.Mutex
	rooms map[string]*record
}

func newMemStore(cfg Config) *memStore {
	return &memStore{cfg: cfg, rooms: map[string]*record{}}
}

func (m *memStore) create(r *record) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sweepLocked()
	if len(m.rooms) >= m.cfg.MaxRooms {
		return ErrTooManyRooms
	}
	if m.rooms[r.Code] != nil {
		return errCodeTaken
	}
	m.rooms[r.Code] = r
	return nil
}

func (m *memStore) getLocked(code string) (*record, error) {
	r := m.rooms[code]
	if r == nil || m.idle(r, m.cfg.Now()) {
		return nil, ErrNotFound
	}
	return r, nil
}

func (m *memStore) idle(r *record, now time.Time) bool {
	return now.Sub(r.LastActive) > m.cfg.IdleTTL
}

func (m *memStore) view(code string, f func(*record) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.getLocked(code)
	if err != nil {
		return err
	}
	return f(r)
}

func (m *memStore) update(code string, f func(*record) error) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.getLocked(code)
	if err != nil {
		return err
	}
	// f works on a copy, so that an error leaves the room untouched.
	c := r.clone()
	if err := f(c); err != nil {
		return err
	}
	m.rooms[code] = c
	return nil
}

func (m *memStore) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rooms)
}

func (m *memStore) sweep() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sweepLocked()
}

func (m *memStore) sweepLocked() int {
	n := 0
	now := m.cfg.Now()
	for code, r := range m.rooms {
		if m.idle(r, now) {
			delete(m.rooms, code)
			n++
		}
	}
	return n
}

// clone copies what a change may modify: the state and its poll, and the
// votes. The history is only ever appended to or replaced.
func (r *record) clone() *record {
	c := *r
	if p := r.State.Poll; p != nil {
		pc := *p
		c.State.Poll = &pc
	}
	c.Votes = make(map[string]int64, len(r.Votes))
	for s, v := range r.Votes {
		c.Votes[s] = v
	}
	c.History = r.History[:len(r.History):len(r.History)]
	return &c
}
