package sim

import (
	"context"
	"testing"

	"github.com/redis/go-redis/v9"
)

// TestRedisArgsAsText: the trace writes a command's []byte arguments as
// the text they hold, as redis-cli does, not as Go's list of numbers;
// bytes that are not printable text are quoted with escapes.
func TestRedisArgsAsText(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []any
		want string
	}{
		{[]any{"set", []byte("idem:pay-1"), []byte("done"), "nx"}, "SET idem:pay-1 done NX"},
		{[]any{"get", "idem:pay-1"}, "GET idem:pay-1"},
		{[]any{"set", []byte("k"), []byte{0xff, 0x00}, "px", 1000}, `SET k "\xff\x00" PX 1000`},
		{[]any{"set", []byte("k"), []byte("ключ")}, "SET k ключ"},
	} {
		if got := redisCommand(redis.NewStatusCmd(ctx, tc.args...)); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.args, got, tc.want)
		}
	}
}
