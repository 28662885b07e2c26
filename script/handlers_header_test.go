package script

import (
	"slices"
	"strings"
	"testing"
)

func TestHandlersHeader(t *testing.T) {
	s, err := Parse("handlers: unique-error, naive\npublish pay-1 amount=1\n")
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(s.Handlers, []string{"unique-error", "naive"}) {
		t.Errorf("Handlers %v", s.Handlers)
	}
	text := s.String()
	if !strings.HasPrefix(text, "handlers: unique-error,naive\n") {
		t.Errorf("canonical form:\n%s", text)
	}
	again, err := Parse(text)
	if err != nil || again.String() != text {
		t.Errorf("round trip: %v\n%s", err, again)
	}
	for src, want := range map[string]string{
		"handlers: nobody\n":       `unknown handler "nobody"; valid handlers: naive`,
		"handlers: naive,naive\n":  "naive is named twice",
		"handlers:\n":              "needs handler names",
		"handlers: naive,\n":       "needs handler names",
		"deliver\nhandlers: naive": "must come before the first step",
	} {
		if _, err := Parse(src); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want %q", src, err, want)
		}
	}
}
