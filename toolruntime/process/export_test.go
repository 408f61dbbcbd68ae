package process

// WithStartHook calls f with the pid of each process the backend starts
// (the runner, or bubblewrap), before the program is sent.
func WithStartHook(f func(pid int)) Option {
	return func(c *config) error {
		c.onStart = f
		return nil
	}
}
