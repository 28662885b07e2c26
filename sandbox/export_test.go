package sandbox

// SelfTestUnisolated runs the self-test on a child that is not isolated:
// it must find what such a child can do.
func SelfTestUnisolated(r *Runner) error { return r.selfTest(isolation{}) }

// Interpret evaluates a file's source as every handler file is evaluated
// (the sandbox's symbols) and returns the interpreted value of
// handler.NAME, whatever Parse would say of the file.
func Interpret(src string) (func(name string) (any, error), error) {
	i, err := evaluate(src)
	if err != nil {
		return nil, err
	}
	return func(name string) (any, error) {
		v, err := i.Eval("handler." + name)
		if err != nil {
			return nil, err
		}
		return v.Interface(), nil
	}, nil
}

// Served makes r tell f each child's process id (as this process sees
// it) as the child gets its request.
func Served(r *Runner, f func(pid int)) { r.served = f }

// Waiting waits until no child of r is starting and returns the process
// ids of those waiting for a request, the oldest first.
func Waiting(r *Runner) []int { return r.warm.settle() }
