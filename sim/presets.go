package sim

import (
	"embed"
	"fmt"
	"io/fs"
	"strings"

	"github.com/idempotency-lab/lab/script"
)

//go:embed presets/*.lab presets/index.txt presets/api/*.lab presets/api/index.txt
var presetFiles embed.FS

// Preset is a named scenario shipped with the lab, with narration for every
// step in English and Russian.
type Preset struct {
	Name   string
	Source string
	Script *script.Script
}

// Presets returns every preset in teaching order (presets/index.txt).
func Presets() ([]Preset, error) {
	return LoadPresets(presetFiles)
}

// APIPresets returns the API side's presets (presets/api), in teaching
// order: scripts of requests, run by the API handlers.
func APIPresets() ([]Preset, error) {
	return loadPresets(presetFiles, "presets/api")
}

// LoadPresets reads presets from fsys: a presets/index.txt naming them in
// order, and one presets/NAME.lab per name.
func LoadPresets(fsys fs.FS) ([]Preset, error) {
	return loadPresets(fsys, "presets")
}

// loadPresets reads dir/index.txt and the presets it names.
func loadPresets(fsys fs.FS, dir string) ([]Preset, error) {
	index, err := fs.ReadFile(fsys, dir+"/index.txt")
	if err != nil {
		return nil, err
	}
	var out []Preset
	for _, name := range strings.Fields(string(index)) {
		src, err := fs.ReadFile(fsys, dir+"/"+name+".lab")
		if err != nil {
			return nil, fmt.Errorf("preset %s: %w", name, err)
		}
		s, err := script.Parse(string(src))
		if err != nil {
			return nil, fmt.Errorf("preset %s: %w", name, err)
		}
		out = append(out, Preset{Name: name, Source: string(src), Script: s})
	}
	return out, nil
}

// FindPreset returns the preset with that name, or an error listing the
// valid names.
func FindPreset(presets []Preset, name string) (Preset, error) {
	names := make([]string, len(presets))
	for i, p := range presets {
		if p.Name == name {
			return p, nil
		}
		names[i] = p.Name
	}
	return Preset{}, fmt.Errorf("unknown scenario %q; valid scenarios: %s", name, strings.Join(names, ", "))
}
