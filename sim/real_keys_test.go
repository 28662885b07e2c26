package sim_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/redis/go-redis/v9"

	"github.com/idempotency-lab/lab/internal/servers"
	"github.com/idempotency-lab/lab/script"
	"github.com/idempotency-lab/lab/sim"
)

// redisKeys counts the keys of each of a Redis server's 16 databases
// with SCAN (INFO keyspace and DBSIZE count keys whose lifetime ran out
// until something touches them).
func redisKeys(t *testing.T, url string) [16]int {
	t.Helper()
	var out [16]int
	for db := range out {
		c := redisDB(t, url, db)
		var cursor uint64
		for {
			keys, next, err := c.Scan(context.Background(), cursor, "*", 1000).Result()
			if err != nil {
				t.Fatal(err)
			}
			out[db] += len(keys)
			if cursor = next; cursor == 0 {
				break
			}
		}
	}
	return out
}

func redisDB(t *testing.T, url string, db int) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.DB = db
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// TestRealEngineLeavesRedisAsFound: what lab run and lab conform run on
// the real engine (presets whose Redis handlers SET NX keys with a 24 h
// lifetime, and the API side) leaves every Redis database with the keys
// it had: the worlds' keys go with their worlds, and a database holding
// someone else's keys is neither used nor emptied.
func TestRealEngineLeavesRedisAsFound(t *testing.T) {
	e := realEngine(t)
	url := servers.Redis(t)
	ctx := context.Background()
	// Someone else's keys in databases 1 and 3, the first ones a world
	// would take.
	for _, db := range []int{1, 3} {
		if err := redisDB(t, url, db).Set(ctx, "theirs", db, 0).Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { redisDB(t, url, db).Del(context.Background(), "theirs") })
	}
	before := redisKeys(t, url)
	presets, err := sim.Presets()
	if err != nil {
		t.Fatal(err)
	}
	api, err := sim.APIPresets()
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	for _, p := range append(presets, api...) {
		switch p.Name {
		case "crash-before-ack", "stuck-processing-expires", "concurrent-duplicates", "api-lost-response":
		default:
			continue
		}
		ran++
		run, err := sim.Execute(ctx, p.Script, sim.Options{Handlers: []string{"all"}, Engine: e})
		if err != nil {
			t.Fatalf("%s: %v", p.Name, err)
		}
		redisHandlers := 0
		for _, r := range run.Results {
			if strings.HasPrefix(r.Handler, "setnx") {
				redisHandlers++
			}
		}
		if p.Script.API == (redisHandlers > 0) {
			t.Fatalf("%s: %d SET NX handlers ran: the test does not run what it means to", p.Name, redisHandlers)
		}
	}
	if ran != 4 {
		t.Fatalf("ran %d presets, want 4: a preset was renamed", ran)
	}
	if after := redisKeys(t, url); after != before {
		t.Errorf("keys per database: before %v, after %v", before, after)
	}
	for _, db := range []int{1, 3} {
		if v, err := redisDB(t, url, db).Get(ctx, "theirs").Result(); err != nil || v != fmt.Sprint(db) {
			t.Errorf("database %d: their key is %q (%v)", db, v, err)
		}
	}
}

// TestRealEngineRefusesFullRedis: when every database the worlds may use
// holds someone's keys, a Redis handler's run is an error that says so,
// and nothing is touched.
func TestRealEngineRefusesFullRedis(t *testing.T) {
	e := realEngine(t)
	url := servers.Redis(t)
	ctx := context.Background()
	for db := 1; db <= 15; db++ {
		if err := redisDB(t, url, db).Set(ctx, "theirs", db, 0).Err(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { redisDB(t, url, db).Del(context.Background(), "theirs") })
	}
	before := redisKeys(t, url)
	_, err := sim.Execute(ctx, script.MustParse("publish pay-1 amount=100\ndeliver crash=before-ack\n"), sim.Options{Handlers: []string{"setnx"}, Engine: e})
	if err == nil || !strings.Contains(err.Error(), "databases 1 to 15 all hold keys") || !strings.Contains(err.Error(), "FLUSHDB") {
		t.Errorf("err = %v; want one that says every database holds keys, and what to do", err)
	}
	if after := redisKeys(t, url); after != before {
		t.Errorf("keys per database: before %v, after %v", before, after)
	}
}
