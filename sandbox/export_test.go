package sandbox

// SelfTestUnisolated runs the self-test on a child that is not isolated:
// it must find what such a child can do.
func SelfTestUnisolated(r *Runner) error { return r.selfTest(isolation{}) }
