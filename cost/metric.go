package cost

import (
	"strconv"
	"strings"
)

// Metric is one figure per handler that a chart can show: the cost page
// shows one at a time and names it in its address (?metric=).
type Metric string

// The metrics, as Metrics lists them.
const (
	MetricSpeed Metric = "speed" // messages per second
	MetricSQL   Metric = "sql"   // SQL statements per message
	MetricRedis Metric = "redis" // Redis commands per message
	MetricBytes Metric = "bytes" // bytes stored per message (tables and indexes; Redis keys are not counted)
	MetricP99   Metric = "p99"   // p99 time per message, ms
)

// Metrics lists every metric, the default (speed) first.
func Metrics() []Metric {
	return []Metric{MetricSpeed, MetricSQL, MetricRedis, MetricBytes, MetricP99}
}

// MetricChoices is the metrics' names, comma-separated: what an error
// about a bad metric lists.
func MetricChoices() string {
	names := make([]string, 0, len(Metrics()))
	for _, m := range Metrics() {
		names = append(names, string(m))
	}
	return strings.Join(names, ", ")
}

// ParseMetric reads a metric's name; "" is the default. ok is false for
// any other name.
func ParseMetric(s string) (m Metric, ok bool) {
	if s == "" {
		return MetricSpeed, true
	}
	for _, m := range Metrics() {
		if string(m) == s {
			return m, true
		}
	}
	return "", false
}

// Title is the chart's title in lang ("en" or "ru").
func (m Metric) Title(lang string) string {
	switch m {
	case MetricBytes:
		return word("storage", lang)
	default:
		return word(string(m), lang)
	}
}

// Of is r's figure for the metric, and the text printed beside its bar.
func (m Metric) Of(r Result) (float64, string) {
	switch m {
	case MetricSQL:
		return r.SQLPer, strconv.FormatFloat(r.SQLPer, 'f', 2, 64)
	case MetricRedis:
		return r.RedisPer, strconv.FormatFloat(r.RedisPer, 'f', 2, 64)
	case MetricBytes:
		return r.BytesPer, strconv.FormatFloat(r.BytesPer, 'f', 0, 64)
	case MetricP99:
		return r.P99, strconv.FormatFloat(r.P99, 'f', 3, 64)
	default:
		return r.PerSecond, strconv.FormatFloat(r.PerSecond, 'f', 0, 64)
	}
}
