package handlers

import (
	"slices"
	"testing"
)

// Every handler in the catalogue has one of the families the lab shows,
// and every family has a handler; a handler that claims a key in Redis is
// a lock, and only those are.
func TestFamilies(t *testing.T) {
	seen := map[Family]int{}
	for _, h := range List() {
		if !slices.Contains(Families(), h.Family) {
			t.Errorf("%s: family %q is not one of %v", h.Name, h.Family, Families())
		}
		if h.Redis != (h.Family == FamilyLock) {
			t.Errorf("%s: Redis %v but family %q", h.Name, h.Redis, h.Family)
		}
		seen[h.Family]++
	}
	for _, f := range Families() {
		if seen[f] == 0 {
			t.Errorf("no handler in family %q", f)
		}
	}
}
