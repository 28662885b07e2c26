package page

import (
	"strings"
	"testing"
)

// TestJoinRefusesARepeatedKey: two parts that define one key would make a
// page's wording depend on the order the parts are given in, so Join says
// which keys repeat instead of choosing.
func TestJoinRefusesARepeatedKey(t *testing.T) {
	a := Catalog{"x.one": {"one", "один"}, "x.two": {"two", "два"}}
	b := Catalog{"y.one": {"one", "один"}}
	c, err := Join(a, b)
	if err != nil || len(c) != 3 {
		t.Fatalf("distinct keys: %v, %d keys", err, len(c))
	}
	_, err = Join(a, b, Catalog{"x.two": {"2", "2"}, "y.one": {"1", "1"}}, Catalog{"x.two": {"II", "II"}})
	if err == nil {
		t.Fatal("repeated keys were joined")
	}
	if msg := err.Error(); !strings.Contains(msg, "x.two, y.one") || strings.Count(msg, "x.two") != 1 {
		t.Errorf("the error should name each repeated key once: %s", msg)
	}
	// The shell's own words are part of every catalogue: a part cannot
	// redefine them either.
	if _, err := NewCatalog(Catalog{"err.title.503": {"busy", "занято"}}); err == nil {
		t.Error("a part redefined a key of the shell's")
	}
}
