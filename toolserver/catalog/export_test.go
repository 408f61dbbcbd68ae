package catalog

// WithJitter makes the jitter of the retry backoff come from fn, which
// returns a number in [0, 1), so that tests know each delay.
func WithJitter(fn func() float64) Option {
	return func(o *options) { o.backoff.jitter = fn }
}
