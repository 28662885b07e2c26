package timeline

import "strings"

// cells is the estimated width of s in character cells of a monospace font:
// one per character, two for the wide ones (CJK, emoji, and the symbols a
// monospace font may lack and borrow from a wider fallback font).
func cells(s string) int {
	n := 0
	for _, r := range s {
		n += runeCells(r)
	}
	return n
}

func runeCells(r rune) int {
	switch {
	case r < 0x2190:
		return 1
	case r >= 0x2190 && r < 0x2c00, // arrows, technical, dingbats, symbols
		r >= 0x2e80 && r < 0xa4d0, // CJK
		r >= 0xac00 && r < 0xd7a4, // Hangul
		r >= 0xf900 && r < 0xfb00,
		r >= 0xfe30 && r < 0xfe50,
		r >= 0xff00 && r < 0xff61,
		r >= 0x1f000:
		return 2
	}
	return 1
}

// fitCells is how many cells of a font whose character advance is adv fit
// in width.
func fitCells(width int, adv float64) int {
	n := int(float64(width) / adv)
	if n < 1 {
		n = 1
	}
	return n
}

// truncate shortens s to at most max cells, ending it with an ellipsis when
// anything was cut.
func truncate(s string, max int) string {
	if cells(s) <= max {
		return s
	}
	if max < 1 {
		return ""
	}
	var b strings.Builder
	n := 0
	for _, r := range s {
		w := runeCells(r)
		if n+w > max-1 {
			break
		}
		b.WriteRune(r)
		n += w
	}
	return strings.TrimRight(b.String(), " ") + "…"
}

// wrap breaks s into lines of at most max cells, breaking at spaces where it
// can, and into at most lines lines: what does not fit ends in an ellipsis.
func wrap(s string, max, lines int) []string {
	out, _ := wrapSteps(s, max, lines)
	return out
}

// wrapSteps is wrap, also counting the bytes it measured, one pass each:
// the work done, which stays a small multiple of len(s) (a test holds it
// there), however long a word is. Each width is measured once and carried:
// a word longer than a line is cut from the front, never measured again.
func wrapSteps(s string, max, lines int) ([]string, int) {
	if lines < 1 {
		lines = 1
	}
	steps := 0
	var out []string
	cur, curW := "", 0 // the line being filled and its width in cells
	for _, word := range strings.Fields(s) {
		ww := cells(word)
		steps += len(word)
		for ww > max {
			// A word longer than a line: fill the line, carry the rest.
			room := max
			if cur != "" {
				room = max - curW - 1
			}
			if room < 4 { // too little room to be worth splitting into
				out = append(out, cur)
				cur, curW = "", 0
				room = max
			}
			head, tail, hw := splitCells(word, room)
			steps += len(head)
			if cur != "" {
				head = cur + " " + head
			}
			out = append(out, head)
			cur, curW = "", 0
			word, ww = tail, ww-hw
		}
		switch {
		case cur == "":
			cur, curW = word, ww
		case curW+1+ww <= max:
			cur += " " + word
			curW += 1 + ww
		default:
			out = append(out, cur)
			cur, curW = word, ww
		}
	}
	if cur != "" || len(out) == 0 {
		out = append(out, cur)
	}
	if len(out) > lines {
		// What is left from the last line on is cut to one line: only its
		// first max cells are read, not the whole rest of a long text.
		last := truncateLines(out[lines-1:], max)
		steps += len(last)
		out = append(out[:lines-1], last)
		if !strings.HasSuffix(out[lines-1], "…") {
			out[lines-1] = truncate(out[lines-1]+" …", max)
		}
	}
	return out, steps
}

// truncateLines is truncate(strings.Join(ls, " "), max), reading no more of
// ls than the result needs.
func truncateLines(ls []string, max int) string {
	var b strings.Builder
	w := 0
	for i, l := range ls {
		if i > 0 {
			b.WriteByte(' ')
			w++
		}
		for _, r := range l {
			w += runeCells(r)
			b.WriteRune(r)
			if w > max {
				// Wider than max: truncate cuts it at max-1 cells
				// whatever follows, so the rest need not be read.
				return truncate(b.String(), max)
			}
		}
	}
	return truncate(b.String(), max)
}

// splitCells splits s after at most n cells (at least one rune), and says
// how wide the head is.
func splitCells(s string, n int) (head, tail string, w int) {
	for i, r := range s {
		rw := runeCells(r)
		if w+rw > n && i > 0 {
			return s[:i], s[i:], w
		}
		w += rw
	}
	return s, "", w
}

// balance wraps s like wrap, but when the text fits whole in the lines it
// takes, it evens them out: the narrowest width that needs no more lines,
// so that no line is left with a lone word.
func balance(s string, max, lines int) []string {
	out := wrap(s, max, lines)
	n := len(out)
	if n < 2 || len(wrap(s, max, n+1)) > n {
		return out // one line, or cut short: nothing to even out
	}
	lo, hi := 1, max // the narrowest width that keeps n lines is in (lo, hi]
	for lo < hi {
		mid := (lo + hi) / 2
		if len(wrap(s, mid, n+1)) <= n {
			hi = mid
		} else {
			lo = mid + 1
		}
	}
	return wrap(s, hi, n)
}
