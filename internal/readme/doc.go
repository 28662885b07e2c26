// Package readme holds no code: its test keeps the README's map of the
// code true, so that the first thing a newcomer reads matches the tree.
package readme
