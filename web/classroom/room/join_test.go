package room

import (
	"errors"
	"testing"
)

// TestBackendsJoinedAndVoters: each join counts one identity in the room,
// on whichever server; the instructor hears it; a poll counts each
// identity's answer once, however often it answers, and says how many
// identities answered.
func TestBackendsJoinedAndVoters(t *testing.T) {
	backends(t, Config{}, func(t *testing.T, p *pair) {
		code, secret := mustCreate(t, p.a)
		teacher, err := p.a.Watch(code, secret)
		if err != nil {
			t.Fatal(err)
		}
		next(t, teacher)
		for range 3 {
			if err := p.b.Join(code); err != nil {
				t.Fatal(err)
			}
		}
		waitFor(t, teacher, "3 joined", func(s State) bool { return s.Joined == 3 })
		if st, _ := p.a.State(code, false); st.Joined != 3 {
			t.Fatalf("students' state: %d joined, want 3", st.Joined)
		}
		if err := p.b.Join("ZZZZZZ"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("joining no room: %v, want ErrNotFound", err)
		}
		st, err := p.a.OpenPoll(code, secret, "naive", 1)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range []struct {
			student string
			answer  int64
		}{{"s1", 100}, {"s1", 200}, {"s2", 200}, {"s1", 300}, {"s1", 300}} {
			if err := p.b.Vote(code, v.student, st.Poll.ID, v.answer); err != nil {
				t.Fatal(err)
			}
		}
		// The last vote is s1's 300: its state is the last one to come.
		got := waitFor(t, teacher, "the last vote", func(s State) bool { return s.Poll != nil && len(s.Poll.Counts) == 2 })
		if got.Poll.Votes != 2 || got.Poll.Voters != 2 || got.Poll.Counts[0] != (VoteCount{Balance: 200, Count: 1}) {
			t.Fatalf("poll %+v: want 2 votes from 2 voters, one for 200, one for 300", got.Poll)
		}
		res, _, err := p.b.Results(code, secret)
		if err != nil || len(res) != 1 || res[0].Voters != 2 {
			t.Fatalf("results: %+v, %v", res, err)
		}
	})
}
