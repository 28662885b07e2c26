package timeline

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// refWrap is wrap as it was first written: it measures a long word again
// for each line it cuts from it (quadratic in the word), but it is short
// enough to read as the definition of what wrap returns.
func refWrap(s string, max, lines int) []string {
	if lines < 1 {
		lines = 1
	}
	var out []string
	cur := ""
	for _, word := range strings.Fields(s) {
		for cells(word) > max {
			room := max
			if cur != "" {
				room = max - cells(cur) - 1
			}
			if room < 4 {
				out = append(out, cur)
				cur = ""
				room = max
			}
			head, tail, _ := splitCells(word, room)
			if cur != "" {
				head = cur + " " + head
			}
			out = append(out, head)
			cur, word = "", tail
		}
		switch {
		case cur == "":
			cur = word
		case cells(cur)+1+cells(word) <= max:
			cur += " " + word
		default:
			out = append(out, cur)
			cur = word
		}
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	if len(out) > lines {
		last := strings.Join(out[lines-1:], " ")
		out = append(out[:lines-1], truncate(last, max))
		if !strings.HasSuffix(out[lines-1], "…") {
			out[lines-1] = truncate(out[lines-1]+" …", max)
		}
	}
	return out
}

// TestWrapMatchesReference compares wrap with refWrap on texts made of
// short and long words, wide runes and runs of spaces, at every width.
func TestWrapMatchesReference(t *testing.T) {
	texts := []string{
		"", " ", "a", "one two three four five six seven",
		strings.Repeat("x", 100),
		"ab " + strings.Repeat("y", 57) + " cd " + strings.Repeat("z", 9),
		"INSERT INTO processed (tenant, key) VALUES ('acme', 'k-1') ON CONFLICT DO NOTHING",
		strings.Repeat("✓", 31) + " ok " + strings.Repeat("日本", 12),
		"a  b\tc\nd " + strings.Repeat("ab ", 40),
	}
	for _, s := range texts {
		for max := 1; max <= 24; max++ {
			for lines := 0; lines <= 5; lines++ {
				if got, want := wrap(s, max, lines), refWrap(s, max, lines); !slices.Equal(got, want) {
					t.Errorf("wrap(%q, %d, %d) = %q, want %q", s, max, lines, got, want)
				}
			}
		}
	}
}

// FuzzWrap holds wrap to refWrap on any text.
func FuzzWrap(f *testing.F) {
	f.Add("one two three", 7, 2)
	f.Add(strings.Repeat("abcdef", 20)+" x", 9, 3)
	f.Add("✓✓✓ 日本語のテキスト", 3, 4)
	f.Fuzz(func(t *testing.T, s string, max, lines int) {
		if len(s) > 4096 || max < 1 || max > 200 || lines > 20 {
			return
		}
		if got, want := wrap(s, max, lines), refWrap(s, max, lines); !slices.Equal(got, want) {
			t.Errorf("wrap(%q, %d, %d) = %q, want %q", s, max, lines, got, want)
		}
	})
}

// TestWrapLinear counts the bytes wrap measures: a 1 MB word, a text of
// 1 MB in short words, and one of wide runes cost a small multiple of their
// length, not a multiple for each line cut.
func TestWrapLinear(t *testing.T) {
	const n = 1 << 20
	for name, s := range map[string]string{
		"one token":   strings.Repeat("a", n),
		"short words": strings.Repeat("ab ", n/3),
		"wide runes":  strings.Repeat("日", n/3),
		"mixed":       strings.Repeat("x"+strings.Repeat("y", 99)+" ", n/101),
	} {
		for _, max := range []int{5, 40, 200} {
			for _, lines := range []int{1, 3} {
				_, steps := wrapSteps(s, max, lines)
				if steps > 3*len(s) {
					t.Errorf("%s, max %d, lines %d: %d bytes measured for %d bytes of text", name, max, lines, steps, len(s))
				}
			}
		}
	}
}

// BenchmarkWrap wraps one long word: the time per byte is the same at
// 10 KB and 1 MB when wrapping is linear.
func BenchmarkWrap(b *testing.B) {
	for _, n := range []int{10 << 10, 100 << 10, 1 << 20} {
		s := strings.Repeat("a", n)
		b.Run(fmt.Sprintf("%dKB", n>>10), func(b *testing.B) {
			b.SetBytes(int64(n))
			for b.Loop() {
				wrap(s, 40, 3)
			}
		})
	}
}
