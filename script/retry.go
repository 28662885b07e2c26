package script

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// The API client's retry policy (the client-retry: header) and the
// server's capacity (the server-capacity: header).
//
//	client-retry: none | fixed | exponential | exponential-jitter [base=1m] [cap=8m] [attempts=5] [retry-after]
//	server-capacity: N
//
// Without client-retry: the client keeps the lab's first schedule: when
// the script ends it retries every request it has no final answer to
// together, at once and then after 1, 2, 4 and 8 minutes (clientBackoff).
// With a policy each request keeps its own schedule from the end of the
// script, as a client process per payment would: retry k (1 to attempts)
// waits base (fixed), min(cap, base·2^(k-1)) (exponential), or a whole
// number of seconds drawn uniformly from 0 to that (exponential-jitter:
// AWS's "full jitter"). retry-after: an answer with Retry-After is not
// retried before it says. none: the client never retries (it gave up: a
// closed tab, a killed app). After its last attempt the client gives up.
//
// server-capacity: N: the server admits N requests per minute of the
// lab's clock (whole minutes from the run's start) and answers the rest
// 503 Service Unavailable with Retry-After (the seconds to the next
// minute) before the handler runs: load shedding in front of a slow
// dependency. 0 (the default): no limit.

// Retry policies (ClientRetry.Policy). "" is the lab's first schedule.
const (
	RetryNone        = "none"
	RetryFixed       = "fixed"
	RetryExponential = "exponential"
	RetryJitter      = "exponential-jitter"
)

// retryPolicies lists the policies in the order the errors give them.
var retryPolicies = []string{RetryNone, RetryFixed, RetryExponential, RetryJitter}

// Defaults and limits of a retry policy's options.
const (
	DefaultRetryBase     = time.Minute
	DefaultRetryCap      = 8 * time.Minute
	DefaultRetryAttempts = 5
	MaxRetryAttempts     = 20
	MaxServerCapacity    = 1000
)

// ClientRetry is how the API client retries once the script ends. The
// zero value is the lab's first schedule (clientBackoff).
type ClientRetry struct {
	Policy     string        // "", or one of the Retry constants
	Base, Cap  time.Duration // of fixed (Base only) and the exponential policies
	Attempts   int           // retries per request before the client gives up
	RetryAfter bool          // honour an answer's Retry-After
}

// parseClientRetry reads the client-retry: header's value.
func parseClientRetry(n int, value string) (ClientRetry, error) {
	fields := strings.Fields(value)
	if len(fields) == 0 || !slices.Contains(retryPolicies, fields[0]) {
		policy := ""
		if len(fields) > 0 {
			policy = fields[0]
		}
		return ClientRetry{}, errf(n, "script.client-retry-policy", strconv.Quote(policy), strings.Join(retryPolicies, ", "))
	}
	cr := ClientRetry{Policy: fields[0], Base: DefaultRetryBase, Cap: DefaultRetryCap, Attempts: DefaultRetryAttempts}
	if cr.Policy == RetryNone {
		if len(fields) > 1 {
			return ClientRetry{}, errf(n, "script.client-retry-none-options", strconv.Quote(strings.Join(fields[1:], " ")))
		}
		return ClientRetry{Policy: RetryNone}, nil
	}
	allowed := []string{"base", "cap", "attempts"}
	if cr.Policy == RetryFixed {
		allowed = []string{"base", "attempts"} // a fixed wait has nothing to cap
	}
	var kv []string
	for _, a := range fields[1:] {
		if a != "retry-after" {
			kv = append(kv, a)
			continue
		}
		if cr.RetryAfter {
			return ClientRetry{}, errf(n, "script.client-retry-after-twice")
		}
		cr.RetryAfter = true
	}
	opts, err := options(n, "client-retry: "+cr.Policy, kv, append(allowed, "retry-after (no value)"))
	if err != nil {
		return ClientRetry{}, err
	}
	for _, name := range []string{"base", "cap"} {
		v, ok := opts[name]
		if !ok {
			continue
		}
		d, derr := parseDuration(v)
		if derr != nil {
			return ClientRetry{}, wrapf(n, derr, "client-retry: %s=%s", name, v)
		}
		if name == "base" {
			cr.Base = d
		} else {
			cr.Cap = d
		}
	}
	if v, ok := opts["attempts"]; ok {
		a, aerr := strconv.Atoi(v)
		if aerr != nil || a < 1 || a > MaxRetryAttempts || strconv.Itoa(a) != v {
			return ClientRetry{}, errf(n, "script.client-retry-attempts", v, MaxRetryAttempts)
		}
		cr.Attempts = a
	}
	if cr.Policy != RetryFixed && cr.Cap < cr.Base {
		return ClientRetry{}, errf(n, "script.client-retry-cap", formatDuration(cr.Cap), formatDuration(cr.Base))
	}
	return cr, nil
}

// String writes the policy as the header's value, the options that differ
// from the defaults only; "" for the lab's first schedule.
func (cr ClientRetry) String() string {
	if cr.Policy == "" || cr.Policy == RetryNone {
		return cr.Policy
	}
	s := cr.Policy
	if cr.Base != DefaultRetryBase {
		s += " base=" + formatDuration(cr.Base)
	}
	if cr.Policy != RetryFixed && cr.Cap != DefaultRetryCap {
		s += " cap=" + formatDuration(cr.Cap)
	}
	if cr.Attempts != DefaultRetryAttempts {
		s += " attempts=" + strconv.Itoa(cr.Attempts)
	}
	if cr.RetryAfter {
		s += " retry-after"
	}
	return s
}

// Ceiling is the exponential wait before retry k (from 1): base·2^(k-1),
// at most cap.
func (cr ClientRetry) Ceiling(k int) time.Duration {
	d := cr.Base
	for i := 1; i < k && d < cr.Cap; i++ {
		d *= 2
	}
	return min(d, cr.Cap)
}

// parseCapacity reads the server-capacity: header's value.
func parseCapacity(n int, value string) (int, error) {
	c, err := strconv.Atoi(value)
	if err != nil || c < 0 || c > MaxServerCapacity || strconv.Itoa(c) != value {
		return 0, errf(n, "script.server-capacity", strconv.Quote(value), MaxServerCapacity)
	}
	return c, nil
}
