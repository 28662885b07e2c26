package practice

import (
	"cmp"
	"encoding/binary"
	"hash/fnv"
	"slices"
)

// InterviewSize is the length of an "interview in 15 minutes": about 90
// seconds an item.
const InterviewSize = 10

// Interview is the "interview in 15 minutes" mode: n items (InterviewSize
// if n <= 0) mixed across topics and kinds, the same for the same seed and
// bank, returned in course order. The caller picks the seed (from the URL,
// so a run can be shared and repeated).
//
// How: each topic's items are ranked by a hash of the seed and the item
// id; topics are visited round robin, starting from a topic the seed
// picks, and each visit takes the topic's best-ranked unused item of the
// kind the plan asks for next (choice, open, choice, predict, open, and
// again), or of any kind if the topic has none of that kind left (the
// api topic has no predict items). Each topic gives one item before any
// gives a second, so 10 items cover 9 topics, or all of them when there
// are fewer; which ones the seed decides. A bank with coding exercises
// gives one of them (the seed's) in place of the last item.
func (b *Bank) Interview(seed uint64, n int) []Question {
	if n <= 0 {
		n = InterviewSize
	}
	// At most one coding exercise, the seed's pick, in place of the last
	// item: writing a handler takes longer than answering a question.
	var code *Question
	others := 0
	for _, q := range b.questions {
		switch {
		case q.Kind != KindCode:
			others++
		case code == nil || rank(seed, q.ID) < rank(seed, code.ID):
			code = &q
		}
	}
	withCode := code != nil && n > 1
	if withCode {
		n--
	}
	n = min(n, others)
	byTopic := make([][]Question, len(b.topics))
	for i, t := range b.topics {
		for _, q := range b.questions {
			if q.Topic == t.Slug && q.Kind != KindCode {
				byTopic[i] = append(byTopic[i], q)
			}
		}
		slices.SortFunc(byTopic[i], func(x, y Question) int {
			return cmp.Or(cmp.Compare(rank(seed, x.ID), rank(seed, y.ID)), cmp.Compare(x.ID, y.ID))
		})
	}
	plan := []Kind{KindChoice, KindOpen, KindChoice, KindPredict, KindOpen}
	var picked []Question
	start := int(rank(seed, "") % uint64(len(b.topics)))
	for k := 0; len(picked) < n; k++ {
		t := (start + k) % len(b.topics)
		items := byTopic[t]
		if len(items) == 0 {
			continue
		}
		j := slices.IndexFunc(items, func(q Question) bool { return q.Kind == plan[len(picked)%len(plan)] })
		if j < 0 {
			j = 0
		}
		picked = append(picked, items[j])
		byTopic[t] = slices.Delete(items, j, j+1)
	}
	if withCode {
		picked = append(picked, *code)
	}
	// The bank is in course order, so its index orders the interview.
	slices.SortFunc(picked, func(x, y Question) int { return b.byID[x.ID] - b.byID[y.ID] })
	return picked
}

// rank is a stable pseudo-random number for an item under a seed: FNV-1a
// of both, so a seed gives the same interview on every Go version.
func rank(seed uint64, id string) uint64 {
	h := fnv.New64a()
	var buf [8]byte
	binary.LittleEndian.PutUint64(buf[:], seed)
	h.Write(buf[:])
	h.Write([]byte(id))
	return h.Sum64()
}
