package process

// WithStartHook calls f with the pid of the process (the runner, or
// bubblewrap) that runs each execution, before the program is sent: a
// process started ahead is reported when its execution takes it.
func WithStartHook(f func(pid int)) Option {
	return func(c *config) error {
		c.onStart = f
		return nil
	}
}
