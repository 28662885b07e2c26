package cost

import "testing"

// Each metric reads its own figure of a result and prints it as the table
// does; every title exists in both languages; a name that is not a metric
// is refused.
func TestMetrics(t *testing.T) {
	r := Result{PerSecond: 1234.4, SQLPer: 2.5, RedisPer: 1.25, BytesPer: 159.7, P99: 0.1234}
	want := map[Metric][2]any{
		MetricSpeed: {1234.4, "1234"},
		MetricSQL:   {2.5, "2.50"},
		MetricRedis: {1.25, "1.25"},
		MetricBytes: {159.7, "160"},
		MetricP99:   {0.1234, "0.123"},
	}
	if len(Metrics()) != len(want) {
		t.Fatalf("%d metrics, want %d", len(Metrics()), len(want))
	}
	titles := map[string]Metric{}
	for _, m := range Metrics() {
		if got, ok := ParseMetric(string(m)); !ok || got != m {
			t.Errorf("ParseMetric(%q) = %q, %v", m, got, ok)
		}
		v, text := m.Of(r)
		if v != want[m][0] || text != want[m][1] {
			t.Errorf("%s: %v %q, want %v %q", m, v, text, want[m][0], want[m][1])
		}
		for _, lang := range []string{"en", "ru"} {
			title := m.Title(lang)
			if other, dup := titles[title]; title == "" || dup {
				t.Errorf("%s in %s: title %q (also %q's)", m, lang, title, other)
			}
			titles[title] = m
		}
	}
	if m, ok := ParseMetric(""); !ok || m != MetricSpeed {
		t.Errorf(`ParseMetric("") = %q, %v; want the default, speed`, m, ok)
	}
	for _, bad := range []string{"P99", "calls", "storage", "speed "} {
		if _, ok := ParseMetric(bad); ok {
			t.Errorf("ParseMetric(%q) accepted", bad)
		}
	}
	if got := MetricChoices(); got != "speed, sql, redis, bytes, p99" {
		t.Errorf("MetricChoices() = %q", got)
	}
}
