// Package readme holds no code: its tests keep the README's map of the
// code true, so that the first thing a newcomer reads matches the tree,
// and keep what the map promises of names: no import of our own packages
// needs an alias, and only package link writes the lab's address.
package readme
