package handlers

import (
	"embed"
	"fmt"
	"strings"
)

// sources holds this package's own files, so the lab can show the code
// that actually ran.
//
//go:embed *.go
var sources embed.FS

// Source returns the text of one of this package's files, such as
// Info.File.
func Source(file string) (string, error) {
	if strings.HasSuffix(file, "_test.go") || strings.Contains(file, "/") {
		return "", fmt.Errorf("no handler source %q", file)
	}
	b, err := sources.ReadFile(file)
	if err != nil {
		return "", fmt.Errorf("no handler source %q", file)
	}
	return string(b), nil
}

// Marks lists the lines (1-based) of a source file where a handler calls
// Point, by the point's name: where the worker may crash or yield.
func Marks(src string) map[string][]int {
	marks := map[string][]int{}
	for i, line := range strings.Split(src, "\n") {
		for _, p := range []struct{ name, call string }{
			{BeforeEffect, "d.Point(BeforeEffect)"},
			{AfterEffect, "d.Point(AfterEffect)"},
			{Yield, "d.Point(Yield)"},
		} {
			if strings.Contains(line, p.call) {
				marks[p.name] = append(marks[p.name], i+1)
			}
		}
	}
	return marks
}
