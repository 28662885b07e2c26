// Package readme holds no code: its tests keep the README's map of the
// code true, so that the first thing a newcomer reads matches the tree,
// and keep what the map promises of names: no import of our own packages
// needs an alias, only package link writes the lab's address, the web
// reaches the sandbox only to parse a file, and the engine writes no
// Russian (its words are narration's).
package readme
