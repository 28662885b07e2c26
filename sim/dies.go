package sim

import "runtime"

// A worker that reaches the crash point it was told to die at is dead:
// its handler must not catch the crash and carry on, nor learn where it
// died. So the engine runs each call of a handler on a goroutine of its
// own (onOwnGoroutine) and ends that goroutine at the crash point with
// runtime.Goexit (die). The handler's deferred calls still run, as
// tx.Rollback runs when a process's connection drops, but recover()
// returns nil in them: there is no panic to catch, and the goroutine ends
// all the same. The engine waits for the goroutine, so a run stays one
// sequence of steps, as deterministic as before.

// die ends the handler's goroutine: the worker crashed (w.crashNow said
// so in the trace and marked it dead).
func die() { runtime.Goexit() }

// onOwnGoroutine runs fn on a goroutine of its own and waits for it to
// end. It returns what fn panicked with, nil when fn returned or its
// goroutine ended at die.
func onOwnGoroutine(fn func()) (panicked any) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		defer func() { panicked = recover() }()
		fn()
	}()
	<-done
	return panicked
}
