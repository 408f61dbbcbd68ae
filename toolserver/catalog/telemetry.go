package catalog

import (
	"context"
	"crypto/subtle"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.40.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/metatools-go/metatools/errors"
	"github.com/metatools-go/metatools/toolmodel"
	"github.com/metatools-go/metatools/toolrun"
	"github.com/metatools-go/metatools/toolserver/config"
)

// telemetryFlushTimeout bounds how long Close waits for the last spans and
// metrics to be exported.
const telemetryFlushTimeout = 5 * time.Second

// telemetry holds the OpenTelemetry providers the configuration asks for.
// Every component of the catalogue gets the same ones: the runner, the
// upstreams' manager, the server and code mode.
type telemetry struct {
	tracer *sdktrace.TracerProvider
	meter  *sdkmetric.MeterProvider
	// audit is the runner's audit log, writing to auditFile unless that
	// is nil (standard error).
	audit     *toolrun.AuditLog
	auditFile *os.File
	// metrics serves the metrics in Prometheus' format, when asked for.
	metrics http.Handler
}

// newTelemetry opens the audit log and starts the exporters the
// configuration names: no exporter when it names none, or when
// OTEL_SDK_DISABLED is true, as OpenTelemetry's SDKs agree.
func newTelemetry(ctx context.Context, c *config.Config, logger *slog.Logger) (*telemetry, error) {
	cfg := c.Telemetry
	t := &telemetry{}
	if cfg.Audit != "" {
		var w io.Writer = os.Stderr
		if cfg.Audit != config.AuditStderr {
			f, err := os.OpenFile(c.Path(cfg.Audit), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
			if err != nil {
				return nil, fmt.Errorf("audit log: %w", err)
			}
			t.auditFile, w = f, f
		}
		opts := []toolrun.AuditOption{toolrun.AuditErrors(func(err error) { logger.Warn("audit log not written", "error", err) })}
		if cfg.AuditArguments {
			opts = append(opts, toolrun.AuditArguments())
		}
		t.audit = toolrun.NewAuditLog(w, opts...)
	}
	if strings.EqualFold(strings.TrimSpace(os.Getenv("OTEL_SDK_DISABLED")), "true") || (cfg.Traces == "" && cfg.Metrics == "" && cfg.Prometheus == "") {
		return t, nil
	}
	// The service is metatools unless OTEL_SERVICE_NAME or
	// OTEL_RESOURCE_ATTRIBUTES say otherwise: later sources win.
	res, err := resource.New(ctx,
		resource.WithAttributes(semconv.ServiceName("metatools"), semconv.ServiceVersion(toolmodel.ModuleVersion(serverPackage))),
		resource.WithTelemetrySDK(), resource.WithFromEnv())
	if err != nil {
		return nil, errors.Join(err, t.shutdown())
	}
	if cfg.Traces == config.TelemetryOTLP {
		exporter, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, errors.Join(err, t.shutdown())
		}
		t.tracer = sdktrace.NewTracerProvider(sdktrace.WithBatcher(exporter), sdktrace.WithResource(res))
	}
	var readers []sdkmetric.Option
	if cfg.Metrics == config.TelemetryOTLP {
		exporter, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, errors.Join(err, t.shutdown())
		}
		readers = append(readers, sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exporter)))
	}
	if cfg.Prometheus != "" {
		registry := prometheus.NewRegistry()
		exporter, err := otelprom.New(otelprom.WithRegisterer(registry))
		if err != nil {
			return nil, errors.Join(err, t.shutdown())
		}
		readers = append(readers, sdkmetric.WithReader(exporter))
		t.metrics = bearer(cfg.PrometheusToken, promhttp.HandlerFor(registry, promhttp.HandlerOpts{}))
	}
	if len(readers) > 0 {
		t.meter = sdkmetric.NewMeterProvider(append(readers, sdkmetric.WithResource(res))...)
	}
	return t, nil
}

// tracerProvider is the provider of traces, nil when there is none.
func (t *telemetry) tracerProvider() trace.TracerProvider {
	if t == nil || t.tracer == nil {
		return nil
	}
	return t.tracer
}

// meterProvider is the provider of metrics, nil when there is none.
func (t *telemetry) meterProvider() metric.MeterProvider {
	if t == nil || t.meter == nil {
		return nil
	}
	return t.meter
}

// bearer serves h to the requests that present token as their bearer
// token, all of them when token is empty; the others get 401.
func bearer(token string, h http.Handler) http.Handler {
	if token == "" {
		return h
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if subtle.ConstantTimeCompare([]byte(r.Header.Get("Authorization")), want) != 1 {
			w.Header().Set("WWW-Authenticate", "Bearer")
			http.Error(w, "a bearer token is required", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// runnerOptions are the runner's telemetry: its providers and audit log.
func (t *telemetry) runnerOptions() []toolrun.Option {
	opts := []toolrun.Option{toolrun.WithTracerProvider(t.tracerProvider()), toolrun.WithMeterProvider(t.meterProvider())}
	if t.audit != nil {
		// What the log shows of the arguments has its secrets hidden.
		opts = append(opts, toolrun.WithMasker(toolrun.SecretMasker{}), toolrun.WithEventPublisher(t.audit))
	}
	return opts
}

// shutdown exports what the providers still hold, stops them and closes
// the audit log.
func (t *telemetry) shutdown() error {
	if t == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), telemetryFlushTimeout)
	defer cancel()
	var errs []error
	if t.tracer != nil {
		errs = append(errs, t.tracer.Shutdown(ctx))
	}
	if t.meter != nil {
		errs = append(errs, t.meter.Shutdown(ctx))
	}
	if t.auditFile != nil {
		errs = append(errs, t.auditFile.Close())
	}
	return errors.Join(errs...)
}
