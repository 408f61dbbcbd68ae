package toolops

import (
	"context"
	"strings"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"

	"github.com/metatools-go/metatools/errors"
)

// InstrumentationName is the name of the service's meter.
const InstrumentationName = "github.com/metatools-go/metatools/toolops"

// The service's metrics ([WithMeterProvider]).
const (
	// MetricSearchDuration is the histogram of the durations of searches
	// and listings, in seconds, by kind ([AttrSearchKind]) and outcome
	// (error.type, absent for a success).
	MetricSearchDuration = "metatools.search.duration"
	// MetricUpstreams is the gauge of the upstreams, 1 for each, by name
	// ([AttrUpstreamName]), kind ([AttrUpstreamKind]) and state
	// ([AttrUpstreamState]): summed by state, it counts the upstreams up,
	// connecting and failed.
	MetricUpstreams = "metatools.upstreams"
)

// The attributes of the service's metrics.
const (
	// AttrSearchKind is "search" for a query, "list" for a listing.
	AttrSearchKind    = attribute.Key("metatools.search.kind")
	AttrUpstreamName  = attribute.Key("metatools.upstream.name")
	AttrUpstreamKind  = attribute.Key("metatools.upstream.kind")
	AttrUpstreamState = attribute.Key("metatools.upstream.state")
)

// WithMeterProvider makes the service measure its searches
// ([MetricSearchDuration]) and report its upstreams ([MetricUpstreams],
// with [WithUpstreams]) with mp. Without it, the service measures
// nothing.
func WithMeterProvider(mp metric.MeterProvider) Option {
	return func(s *Service) { s.meterProvider = mp }
}

// instrument makes the service's instruments, once its options are
// applied.
func (s *Service) instrument() error {
	if s.meterProvider == nil {
		return nil
	}
	meter := s.meterProvider.Meter(InstrumentationName)
	var err error
	s.searchDurations, err = meter.Float64Histogram(MetricSearchDuration, metric.WithUnit("s"),
		metric.WithDescription("Duration of the searches and listings of the catalogue, by kind and outcome."))
	if err != nil {
		return err
	}
	if s.upstreams == nil {
		return nil
	}
	_, err = meter.Int64ObservableGauge(MetricUpstreams, metric.WithUnit("{upstream}"),
		metric.WithDescription("The upstreams of the catalogue, 1 each, by name, kind and state."),
		metric.WithInt64Callback(func(_ context.Context, o metric.Int64Observer) error {
			for _, u := range s.upstreams() {
				o.Observe(1, metric.WithAttributes(AttrUpstreamName.String(u.Name), AttrUpstreamKind.String(u.Kind), AttrUpstreamState.String(u.State)))
			}
			return nil
		}))
	return err
}

// measureSearch records the duration of a search that began at begin.
func (s *Service) measureSearch(ctx context.Context, query string, begin time.Time, err error) {
	if s.searchDurations == nil {
		return
	}
	kind := "search"
	if strings.TrimSpace(query) == "" {
		kind = "list"
	}
	attrs := []attribute.KeyValue{AttrSearchKind.String(kind)}
	if err != nil {
		attrs = append(attrs, semconv.ErrorTypeKey.String(string(errors.CodeOf(err))))
	}
	s.searchDurations.Record(ctx, time.Since(begin).Seconds(), metric.WithAttributes(attrs...))
}
