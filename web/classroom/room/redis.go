package room

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/redis/go-redis/v9"
)

// Rooms in Redis: several lab servers sharing one Redis server serve one
// classroom. What is kept there:
//
//   - lab:room:CODE, a room's record as JSON, expiring after the idle
//     time; every change sets it again, so an idle room expires by itself;
//   - lab:rooms, the set of the rooms' codes, to count them against
//     Config.MaxRooms (codes of expired rooms are pruned from it);
//   - lab:room:CODE:students, the places taken in a room on every server:
//     a sorted set of "place|server" scored by the time (Config.Now, in
//     milliseconds) the entry lapses unless its server renews it; a
//     server that crashed stops renewing, and its students stop counting;
//   - lab:student-key, the key that signs students' ids, so that a
//     student's cookie is good on every server.
//
// Every change is published on lab:rooms:changes as "CODE\n" and the new
// states as JSON; each server's subscriber sends them to its own
// subscriptions.
const (
	roomsKey       = "lab:rooms"
	changesChannel = "lab:rooms:changes"
	idKeyName      = "lab:student-key"
	// placeTTL is how long a place counts after its server last renewed
	// it; servers renew theirs every placeRenew.
	placeTTL   = 30 * time.Second
	placeRenew = 10 * time.Second
	// updateTries bounds the optimistic retries of one update when other
	// servers keep changing the room.
	updateTries = 50
	// redisTimeout bounds the calls made without a caller's context.
	redisTimeout = 5 * time.Second
)

func roomKey(code string) string   { return "lab:room:" + code }
func placesKey(code string) string { return "lab:room:" + code + ":students" }

// NewRedisHub makes a hub that keeps its rooms in Redis, shared with
// every other lab server on the same Redis server. It checks that Redis
// answers, and runs a subscriber and a heartbeat until Close.
func NewRedisHub(cfg Config, rdb *redis.Client) (*Hub, error) {
	cfg = cfg.withDefaults()
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	if err := rdb.Ping(ctx).Err(); err != nil {
		return nil, fmt.Errorf("rooms in Redis: %w", err)
	}
	b := make([]byte, 6)
	rand.Read(b)
	sh := &shared{rdb: rdb, cfg: cfg, instance: hex.EncodeToString(b), done: make(chan struct{})}
	key := make([]byte, 32)
	rand.Read(key)
	if err := rdb.SetNX(ctx, idKeyName, hex.EncodeToString(key), 0).Err(); err != nil {
		return nil, fmt.Errorf("rooms in Redis: %w", err)
	}
	k, err := rdb.Get(ctx, idKeyName).Result()
	if err != nil {
		return nil, fmt.Errorf("rooms in Redis: %w", err)
	}
	if sh.idKey, err = hex.DecodeString(k); err != nil {
		return nil, fmt.Errorf("rooms in Redis: %s holds no key: %w", idKeyName, err)
	}
	// Subscribe before the first room is served, so no change is missed.
	sh.ps = rdb.Subscribe(ctx, changesChannel)
	if _, err := sh.ps.Receive(ctx); err != nil {
		sh.ps.Close()
		return nil, fmt.Errorf("rooms in Redis: subscribe: %w", err)
	}
	h := &Hub{cfg: cfg, store: &redisStore{rdb: rdb, cfg: cfg}, shared: sh, subs: map[string]map[*Subscription]bool{}}
	sh.wg.Add(2)
	go sh.listen(h)
	go sh.heartbeat(h)
	return h, nil
}

// StudentKey is the key that signs students' ids when every server must
// accept them (Redis), or nil: then each server makes its own.
func (h *Hub) StudentKey() []byte {
	if h.shared == nil {
		return nil
	}
	return h.shared.idKey
}

func redisErr(err error) error {
	if err == nil || errors.Is(err, ErrNotFound) {
		return err
	}
	return fmt.Errorf("rooms in Redis: %w", err)
}

// redisStore keeps the records in Redis.
type redisStore struct {
	rdb *redis.Client
	cfg Config
}

func (s *redisStore) create(r *record) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	if _, err := s.prune(ctx); err != nil {
		return redisErr(err)
	}
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	for range updateTries {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			n, err := tx.SCard(ctx, roomsKey).Result()
			if err != nil {
				return err
			}
			if n >= int64(s.cfg.MaxRooms) {
				return ErrTooManyRooms
			}
			var set *redis.BoolCmd
			if _, err := tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				set = p.SetNX(ctx, roomKey(r.Code), b, s.cfg.IdleTTL)
				p.SAdd(ctx, roomsKey, r.Code)
				return nil
			}); err != nil {
				return err
			}
			if !set.Val() {
				return errCodeTaken
			}
			return nil
		}, roomsKey)
		if !errors.Is(err, redis.TxFailedErr) {
			if errors.Is(err, ErrTooManyRooms) || errors.Is(err, errCodeTaken) {
				return err
			}
			return redisErr(err)
		}
	}
	return redisErr(errors.New("too many servers opening rooms at once; try again"))
}

func (s *redisStore) view(code string, f func(*record) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	r, err := s.load(ctx, s.rdb, code)
	if err != nil {
		return err
	}
	return f(r)
}

// load reads a room's record.
func (s *redisStore) load(ctx context.Context, c redis.Cmdable, code string) (*record, error) {
	b, err := c.Get(ctx, roomKey(code)).Bytes()
	if errors.Is(err, redis.Nil) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, redisErr(err)
	}
	r := &record{}
	if err := json.Unmarshal(b, r); err != nil {
		return nil, fmt.Errorf("room %s in Redis: %w", code, err)
	}
	return r, nil
}

// update is optimistic: it watches the room's key, reads the record,
// applies f and writes it back in a transaction that fails if another
// server wrote the room in between; then it starts over.
func (s *redisStore) update(code string, f func(*record) error) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	key := roomKey(code)
	for range updateTries {
		err := s.rdb.Watch(ctx, func(tx *redis.Tx) error {
			r, err := s.load(ctx, tx, code)
			if err != nil {
				return err
			}
			if err := f(r); err != nil {
				return err
			}
			b, err := json.Marshal(r)
			if err != nil {
				return err
			}
			_, err = tx.TxPipelined(ctx, func(p redis.Pipeliner) error {
				p.Set(ctx, key, b, s.cfg.IdleTTL)
				return nil
			})
			return err
		}, key)
		if !errors.Is(err, redis.TxFailedErr) {
			return err // nil, f's error, or Redis's
		}
	}
	return redisErr(fmt.Errorf("room %s: too many changes at once; try again", code))
}

func (s *redisStore) count() int {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	if _, err := s.prune(ctx); err != nil {
		return 0
	}
	n, _ := s.rdb.SCard(ctx, roomsKey).Result()
	return int(n)
}

func (s *redisStore) sweep() int {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	n, _ := s.prune(ctx)
	return n
}

// prune takes the codes of expired rooms out of lab:rooms, with their
// places, and returns how many it took out.
func (s *redisStore) prune(ctx context.Context) (int, error) {
	codes, err := s.rdb.SMembers(ctx, roomsKey).Result()
	if err != nil || len(codes) == 0 {
		return 0, err
	}
	exists := make([]*redis.IntCmd, len(codes))
	if _, err := s.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for i, code := range codes {
			exists[i] = p.Exists(ctx, roomKey(code))
		}
		return nil
	}); err != nil {
		return 0, err
	}
	n := 0
	for i, code := range codes {
		if exists[i].Val() != 0 {
			continue
		}
		// Two servers may prune at once: the one whose SREM takes the
		// code out counts it.
		removed, err := s.rdb.SRem(ctx, roomsKey, code).Result()
		if err != nil {
			return n, err
		}
		if removed == 1 {
			s.rdb.Del(ctx, placesKey(code))
			n++
		}
	}
	return n, nil
}

// shared is what a Redis hub runs besides its store: the places its
// students take, and the changes it publishes and hears.
type shared struct {
	rdb      *redis.Client
	cfg      Config
	instance string // this server's name in the places it takes
	idKey    []byte
	ps       *redis.PubSub
	done     chan struct{}
	wg       sync.WaitGroup
	once     sync.Once
}

// member is a place as this server stores it.
func (sh *shared) member(key string) string { return key + "|" + sh.instance }

// until is when a place taken or renewed now lapses, in milliseconds.
func (sh *shared) until() float64 { return float64(sh.cfg.Now().Add(placeTTL).UnixMilli()) }

func (sh *shared) join(code, key string) error {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	_, err := sh.rdb.TxPipelined(ctx, func(p redis.Pipeliner) error {
		p.ZAdd(ctx, placesKey(code), redis.Z{Score: sh.until(), Member: sh.member(key)})
		p.Expire(ctx, placesKey(code), 2*placeTTL)
		return nil
	})
	return redisErr(err)
}

func (sh *shared) leave(code, key string) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	sh.rdb.ZRem(ctx, placesKey(code), sh.member(key))
}

// forget drops the places of a room that is gone.
func (sh *shared) forget(code string) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	sh.rdb.Del(ctx, placesKey(code))
}

// places is the set of places taken in a room on every server: the
// entries not lapsed, each place once however many servers hold it.
func (sh *shared) places(code string) (map[string]bool, error) {
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	now := strconv.FormatInt(sh.cfg.Now().UnixMilli(), 10)
	members, err := sh.rdb.ZRangeArgs(ctx, redis.ZRangeArgs{Key: placesKey(code), ByScore: true, Start: "(" + now, Stop: "+inf"}).Result()
	if err != nil {
		return nil, redisErr(err)
	}
	out := make(map[string]bool, len(members))
	for _, m := range members {
		if i := strings.LastIndexByte(m, '|'); i >= 0 {
			out[m[:i]] = true
		}
	}
	return out, nil
}

// change is what is published on every change of a room.
type change struct {
	InstructorOnly bool   `json:"instructor_only,omitempty"`
	Students       *State `json:"students,omitempty"` // the state for students; none when instructorOnly
	Instructor     State  `json:"instructor"`
}

func (sh *shared) publish(code string, forStudents, forInstructor State, instructorOnly bool) error {
	c := change{InstructorOnly: instructorOnly, Instructor: forInstructor}
	if !instructorOnly {
		c.Students = &forStudents
	}
	b, err := json.Marshal(c)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	return redisErr(sh.rdb.Publish(ctx, changesChannel, code+"\n"+string(b)).Err())
}

// listen hands every change heard to this server's subscriptions of the
// room (rooms nobody here follows are skipped before decoding).
func (sh *shared) listen(h *Hub) {
	defer sh.wg.Done()
	for msg := range sh.ps.Channel() {
		code, body, ok := strings.Cut(msg.Payload, "\n")
		if !ok {
			continue
		}
		h.mu.Lock()
		followed := len(h.subs[code]) > 0
		h.mu.Unlock()
		if !followed {
			continue
		}
		var c change
		if json.Unmarshal([]byte(body), &c) != nil {
			continue
		}
		var forStudents State
		if c.Students != nil {
			forStudents = *c.Students
		}
		h.deliver(code, forStudents, c.Instructor, c.InstructorOnly)
	}
}

// heartbeat renews this server's places until Close.
func (sh *shared) heartbeat(h *Hub) {
	defer sh.wg.Done()
	t := time.NewTicker(placeRenew)
	defer t.Stop()
	for {
		select {
		case <-t.C:
			h.renewPlaces()
		case <-sh.done:
			return
		}
	}
}

// renewPlaces renews the places this server's subscriptions take, and
// drops the lapsed entries of the rooms it serves.
func (h *Hub) renewPlaces() {
	if h.shared == nil {
		return
	}
	sh := h.shared
	h.mu.Lock()
	held := map[string][]string{}
	for code, subs := range h.subs {
		for s := range subs {
			if s.key != "" && !slices.Contains(held[code], s.key) {
				held[code] = append(held[code], s.key)
			}
		}
	}
	h.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), redisTimeout)
	defer cancel()
	until, now := sh.until(), strconv.FormatInt(sh.cfg.Now().UnixMilli(), 10)
	sh.rdb.Pipelined(ctx, func(p redis.Pipeliner) error {
		for code, keys := range held {
			zs := make([]redis.Z, len(keys))
			for i, k := range keys {
				zs[i] = redis.Z{Score: until, Member: sh.member(k)}
			}
			p.ZAdd(ctx, placesKey(code), zs...)
			p.ZRemRangeByScore(ctx, placesKey(code), "-inf", now)
			p.Expire(ctx, placesKey(code), 2*placeTTL)
		}
		return nil
	})
}

func (sh *shared) close() {
	sh.once.Do(func() {
		close(sh.done)
		sh.ps.Close()
		sh.wg.Wait()
	})
}
