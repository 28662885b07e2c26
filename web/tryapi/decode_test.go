package tryapi

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzDecodePayment: any body decodes to a valid payment or to problems,
// never a panic; a valid payment is within its limits and reads back the
// same from its own JSON; every problem says where it is and what is
// wrong. The seeds are under testdata/fuzz/FuzzDecodePayment.
func FuzzDecodePayment(f *testing.F) {
	f.Add([]byte(`{"account": "acc-1", "amount": 1000}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		p, errs := DecodePayment(body)
		if errs != nil {
			if p != (Payment{}) {
				t.Fatalf("problems %v and a payment %+v", errs, p)
			}
			for _, e := range errs {
				if e.In != "body" || e.Detail == "" || len([]rune(e.Field)) > 41 {
					t.Fatalf("problem %+v", e)
				}
			}
			return
		}
		if !accountName().MatchString(p.Account) || p.Amount < 1 || p.Amount > MaxAmount {
			t.Fatalf("%q decoded to %+v", body, p)
		}
		again, err := json.Marshal(map[string]any{"account": p.Account, "amount": p.Amount})
		if err != nil {
			t.Fatal(err)
		}
		if q, errs := DecodePayment(again); errs != nil || q != p {
			t.Fatalf("%s reads back as %+v %v", again, q, errs)
		}
	})
}

// TestDecodePayment: the problems each body gets, by field and wording.
func TestDecodePayment(t *testing.T) {
	for _, c := range []struct {
		body string
		want string // the problems, "field: detail" joined by " | "; "" for a valid body
	}{
		{`{"account": "acc-1", "amount": 1000}`, ""},
		{` {"amount": 1, "account": "A_b-9"} ` + "\n", ""},
		{`{"account": "acc-1", "amount": 100000000}`, ""},
		{``, ": the body is empty"},
		{`{"account"`, ": the body is not valid JSON: it ends too early"},
		{`{"account": "acc-1",}`, ": the body is not valid JSON (at byte 21)"},
		{`"acc-1"`, ": the body must be a JSON object, not a string"},
		{`{} []`, ": the body must be one JSON object; more follows it"},
		{`{"b": 1, "a": 2, "account": "x", "amount": 1}`, "a: unknown member | b: unknown member"},
		{`{"account": "", "amount": 1}`, "account: must be 1 to 40 letters"},
		{`{"account": ["x"], "amount": true}`, "account: must be a string, not an array | amount: must be a number in minor units (cents), not a boolean"},
		{`{"account": "x", "amount": -0}`, "amount: must be positive"},
		{`{"account": "x", "amount": 1.0}`, "amount: must be a whole number"},
		{`{"account": "x", "amount": 9223372036854775808}`, "amount: too large: it must be from 1 to 100000000"},
	} {
		_, errs := DecodePayment([]byte(c.body))
		var got []string
		for _, e := range errs {
			got = append(got, e.Field+": "+e.Detail)
		}
		if c.want == "" {
			if errs != nil {
				t.Errorf("%s: %v", c.body, got)
			}
			continue
		}
		parts := strings.Split(c.want, " | ")
		if len(got) != len(parts) {
			t.Errorf("%s: got %q, want %q", c.body, got, parts)
			continue
		}
		for i, w := range parts {
			if !strings.HasPrefix(got[i], w) {
				t.Errorf("%s: problem %d is %q, want it to start %q", c.body, i, got[i], w)
			}
		}
	}
}
