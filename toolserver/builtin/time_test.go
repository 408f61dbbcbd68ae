package builtin_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/metatools-go/metatools/errors"
)

// timeCase is a call of a time tool and the fields of its result to check.
type timeCase struct {
	name string
	args map[string]any
	want map[string]any
}

func runTimeCases(t *testing.T, id string, cases []timeCase) {
	t.Helper()
	h := newHarness(t)
	for _, tt := range cases {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, id, tt.args)
			for field, want := range tt.want {
				assert.Equal(t, want, out[field], field)
			}
		})
	}
}

func TestTimeNow(t *testing.T) {
	runTimeCases(t, "time:now", []timeCase{
		{"UTC by default", map[string]any{}, map[string]any{
			"iso": "2024-03-10T14:30:00Z", "formatted": "2024-03-10T14:30:00Z", "unix": 1710081000.0,
			"timezone": "UTC", "abbreviation": "UTC", "utcOffset": "+00:00", "weekday": "Sunday",
		}},
		{"an IANA zone", map[string]any{"timezone": "Asia/Tokyo"}, map[string]any{
			"iso": "2024-03-10T23:30:00+09:00", "timezone": "Asia/Tokyo", "abbreviation": "JST", "utcOffset": "+09:00",
		}},
		{"daylight saving time has begun", map[string]any{"timezone": "America/New_York"}, map[string]any{
			"iso": "2024-03-10T10:30:00-04:00", "abbreviation": "EDT",
		}},
		{"a fixed offset", map[string]any{"timezone": "+05:30"}, map[string]any{
			"iso": "2024-03-10T20:00:00+05:30", "timezone": "+05:30", "utcOffset": "+05:30",
		}},
		{"unix format", map[string]any{"format": "unix"}, map[string]any{"formatted": "1710081000"}},
		{"unixmilli format", map[string]any{"format": "unixmilli"}, map[string]any{"formatted": "1710081000000"}},
		{"named format", map[string]any{"format": "datetime", "timezone": "Europe/Paris"}, map[string]any{"formatted": "2024-03-10 15:30:00"}},
		{"Go layout", map[string]any{"format": "Mon 2 Jan 2006, 15:04"}, map[string]any{"formatted": "Sun 10 Mar 2024, 14:30"}},
	})
}

func TestTimeConvert(t *testing.T) {
	runTimeCases(t, "time:convert", []timeCase{
		{"a local time between zones", map[string]any{"time": "2024-07-01 09:30", "from": "America/New_York", "to": "Europe/Paris"}, map[string]any{
			"iso": "2024-07-01T15:30:00+02:00", "abbreviation": "CEST",
		}},
		{"an RFC 3339 time keeps its offset", map[string]any{"time": "2024-03-10T14:30:00+01:00", "from": "Asia/Tokyo", "to": "UTC"}, map[string]any{
			"iso": "2024-03-10T13:30:00Z",
		}},
		{"a date is midnight", map[string]any{"time": "2024-12-25", "to": "America/Los_Angeles"}, map[string]any{
			"iso": "2024-12-24T16:00:00-08:00", "weekday": "Tuesday",
		}},
		{"Unix seconds", map[string]any{"time": "1710081000", "to": "UTC"}, map[string]any{"iso": "2024-03-10T14:30:00Z"}},
		{"RFC 1123", map[string]any{"time": "Sun, 10 Mar 2024 14:30:00 GMT", "to": "Asia/Kolkata"}, map[string]any{"iso": "2024-03-10T20:00:00+05:30"}},
		{"an abbreviation of the zone", map[string]any{"time": "Sun, 10 Mar 2024 09:30:00 PST", "from": "America/Los_Angeles", "to": "UTC"}, map[string]any{"iso": "2024-03-10T17:30:00Z"}},
		{"RFC 1123 with a numeric offset", map[string]any{"time": "Sun, 10 Mar 2024 09:30:00 -0800", "to": "UTC"}, map[string]any{"iso": "2024-03-10T17:30:00Z"}},
		{"now", map[string]any{"time": "now", "to": "Europe/London"}, map[string]any{"iso": "2024-03-10T14:30:00Z", "abbreviation": "GMT"}},
		{"fractional seconds", map[string]any{"time": "2024-03-10T14:30:00.25Z", "to": "UTC", "format": "rfc3339nano"}, map[string]any{"formatted": "2024-03-10T14:30:00.25Z"}},
	})
}

func TestTimeAdd(t *testing.T) {
	runTimeCases(t, "time:add", []timeCase{
		{"days", map[string]any{"time": "2024-03-01", "days": 90}, map[string]any{"iso": "2024-05-30T00:00:00Z"}},
		{"from now by default", map[string]any{"days": 1}, map[string]any{"iso": "2024-03-11T14:30:00Z", "weekday": "Monday"}},
		{"a month from the 31st ends on the last day", map[string]any{"time": "2023-01-31", "months": 1}, map[string]any{"iso": "2023-02-28T00:00:00Z"}},
		{"leap day plus a year", map[string]any{"time": "2024-02-29", "years": 1}, map[string]any{"iso": "2025-02-28T00:00:00Z"}},
		{"months roll over years", map[string]any{"time": "2024-11-15", "months": 3}, map[string]any{"iso": "2025-02-15T00:00:00Z"}},
		{"negative calendar units", map[string]any{"time": "2024-03-31", "months": -1, "days": -1}, map[string]any{"iso": "2024-02-28T00:00:00Z"}},
		{"a day keeps the wall clock across daylight saving", map[string]any{"time": "2024-03-09 12:00", "timezone": "America/New_York", "days": 1}, map[string]any{
			"iso": "2024-03-10T12:00:00-04:00",
		}},
		{"24 hours do not", map[string]any{"time": "2024-03-09 12:00", "timezone": "America/New_York", "duration": "24h"}, map[string]any{
			"iso": "2024-03-10T13:00:00-04:00",
		}},
		{"a negative duration", map[string]any{"time": "2024-06-14T18:00:00Z", "duration": "-2h45m"}, map[string]any{"iso": "2024-06-14T15:15:00Z"}},
	})
}

func TestTimeDiff(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name     string
		args     map[string]any
		seconds  float64
		human    string
		calendar map[string]any
	}{
		{"an age", map[string]any{"from": "1990-05-17", "to": "2024-03-10"}, 1067126400, "33 years 9 months 22 days",
			map[string]any{"years": 33.0, "months": 9.0, "days": 22.0, "hours": 0.0, "minutes": 0.0, "seconds": 0.0}},
		{"elapsed time", map[string]any{"from": "2024-03-10T08:15:00Z", "to": "2024-03-10T11:47:30Z"}, 12750, "3 hours 32 minutes 30 seconds",
			map[string]any{"years": 0.0, "months": 0.0, "days": 0.0, "hours": 3.0, "minutes": 32.0, "seconds": 30.0}},
		{"backwards is negative, the calendar gives the size", map[string]any{"from": "now", "to": "2024-03-09T14:30:00Z"}, -86400, "1 day",
			map[string]any{"years": 0.0, "months": 0.0, "days": 1.0, "hours": 0.0, "minutes": 0.0, "seconds": 0.0}},
		{"borrowing across a month end", map[string]any{"from": "2024-01-31T23:00:00Z", "to": "2024-03-01T01:00:00Z"}, 29*86400 + 7200, "1 month 2 hours",
			map[string]any{"years": 0.0, "months": 1.0, "days": 0.0, "hours": 2.0, "minutes": 0.0, "seconds": 0.0}},
		{"no difference", map[string]any{"from": "now", "to": "2024-03-10T15:30:00+01:00"}, 0, "0 seconds",
			map[string]any{"years": 0.0, "months": 0.0, "days": 0.0, "hours": 0.0, "minutes": 0.0, "seconds": 0.0}},
		{"zone-less times in a zone", map[string]any{"from": "2024-03-09 12:00", "to": "2024-03-10 12:00", "timezone": "America/New_York"}, 23 * 3600, "1 day",
			map[string]any{"years": 0.0, "months": 0.0, "days": 1.0, "hours": 0.0, "minutes": 0.0, "seconds": 0.0}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := h.run(t, "time:diff", tt.args)
			assert.InDelta(t, tt.seconds, out["seconds"], 1e-9)
			assert.InDelta(t, tt.seconds/86400, out["days"], 1e-9)
			assert.Equal(t, tt.human, out["human"])
			assert.Equal(t, tt.calendar, out["calendar"])
		})
	}
}

func TestTimeToolsReportBadInput(t *testing.T) {
	h := newHarness(t)
	tests := []struct {
		name string
		id   string
		args map[string]any
		want string
	}{
		{"unknown zone", "time:now", map[string]any{"timezone": "Mars/Olympus_Mons"}, `unknown time zone "Mars/Olympus_Mons": use an IANA name`},
		{"offset out of range", "time:now", map[string]any{"timezone": "+15:00"}, `offset "+15:00" is out of range`},
		{"a format without any element", "time:now", map[string]any{"format": "iso"}, `format "iso" is neither a known format name nor a Go layout`},
		{"an unreadable time", "time:convert", map[string]any{"time": "next tuesday", "to": "UTC"}, `cannot read time "next tuesday"`},
		{"a year is not Unix seconds", "time:convert", map[string]any{"time": "2024", "to": "UTC"}, `cannot read time "2024"`},
		{"an unknown target zone", "time:convert", map[string]any{"time": "now", "to": "Paris"}, `unknown time zone "Paris"`},
		{"an unreadable duration", "time:add", map[string]any{"duration": "3 days"}, `cannot read duration "3 days"`},
		{"an abbreviation of another zone", "time:convert", map[string]any{"time": "Sun, 10 Mar 2024 14:30:00 PST", "to": "UTC"}, `cannot tell the offset of the time zone abbreviation "PST"`},
		{"an unreadable end", "time:diff", map[string]any{"from": "now", "to": "2024-13-01"}, `cannot read time "2024-13-01"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Contains(t, h.toolError(t, tt.id, tt.args), tt.want)
		})
	}
}

func TestTimeToolsRefuseArgumentsTheSchemaForbids(t *testing.T) {
	h := newHarness(t)
	code, msg := h.runError(t, "time:convert", map[string]any{"time": "now"})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/to")
	code, msg = h.runError(t, "time:add", map[string]any{"days": 1.5})
	assert.Equal(t, errors.Validation, code)
	assert.Contains(t, msg, "/days")
}
