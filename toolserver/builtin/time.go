package builtin

import (
	"context"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	// The time tools must know every IANA zone even on a machine without
	// a zone database.
	_ "time/tzdata"

	"github.com/google/jsonschema-go/jsonschema"
)

var timeTags = []string{"time", "date", "timezone", "calendar", "clock"}

// Descriptions shared by the time tools' schemas.
const (
	formatDescription    = `Output format of "formatted": "rfc3339" (default), "rfc3339nano", "rfc1123", "date" (2006-01-02), "time" (15:04:05), "datetime" (2006-01-02 15:04:05), "kitchen" (3:04PM), "unix" (seconds), "unixmilli", or a Go layout written with the reference time Mon Jan 2 15:04:05 MST 2006, such as "Monday 2 January 2006".`
	timeInputDescription = `A time: RFC 3339 ("2024-03-10T14:30:00+01:00" or with "Z"), "2024-03-10T14:30:00", "2024-03-10 14:30", "2024-03-10", RFC 1123 ("Sun, 10 Mar 2024 14:30:00 GMT"), Unix seconds ("1710077400") or "now".`
	zoneDescription      = `An IANA time zone name such as "Europe/Paris" or "America/New_York", "UTC", "Local" (the server's zone) or a fixed offset such as "+05:30".`
)

// timeInfo describes a time in a time zone.
type timeInfo struct {
	ISO          string `json:"iso" jsonschema:"The time in RFC 3339 format, with its offset from UTC."`
	Formatted    string `json:"formatted" jsonschema:"The time in the requested format."`
	Unix         int64  `json:"unix" jsonschema:"Seconds since 1970-01-01T00:00:00Z."`
	Timezone     string `json:"timezone" jsonschema:"The time zone the time is expressed in."`
	Abbreviation string `json:"abbreviation" jsonschema:"The abbreviation of the zone at that time, such as CET or EDT (may be a numeric offset where the zone has none)."`
	UTCOffset    string `json:"utcOffset" jsonschema:"The offset from UTC at that time, as +hh:mm."`
	Weekday      string `json:"weekday" jsonschema:"The day of the week, such as Monday."`
}

func describeTime(t time.Time, zone, format string) (timeInfo, error) {
	formatted, err := formatTime(t, format)
	if err != nil {
		return timeInfo{}, err
	}
	abbr, _ := t.Zone()
	return timeInfo{
		ISO:          t.Format(time.RFC3339Nano),
		Formatted:    formatted,
		Unix:         t.Unix(),
		Timezone:     zone,
		Abbreviation: abbr,
		UTCOffset:    t.Format("-07:00"),
		Weekday:      t.Weekday().String(),
	}, nil
}

// namedLayouts are the formats known by name.
var namedLayouts = map[string]string{
	"rfc3339":     time.RFC3339,
	"rfc3339nano": time.RFC3339Nano,
	"rfc1123":     time.RFC1123,
	"date":        time.DateOnly,
	"time":        time.TimeOnly,
	"datetime":    time.DateTime,
	"kitchen":     time.Kitchen,
}

// Two times that differ in every element of a layout: a layout formats
// them alike only when it has no element at all, which is a typo rather
// than a layout.
var (
	layoutProbeA = time.Date(2001, 2, 3, 4, 5, 6, 7e8, time.FixedZone("AAA", 3600))
	layoutProbeB = time.Date(2012, 11, 24, 17, 48, 59, 1e8, time.FixedZone("BBB", -7200))
)

func formatTime(t time.Time, format string) (string, error) {
	switch name := strings.ToLower(format); name {
	case "":
		return t.Format(time.RFC3339), nil
	case "unix":
		return strconv.FormatInt(t.Unix(), 10), nil
	case "unixmilli":
		return strconv.FormatInt(t.UnixMilli(), 10), nil
	default:
		if layout, ok := namedLayouts[name]; ok {
			return t.Format(layout), nil
		}
	}
	if layoutProbeA.Format(format) == layoutProbeB.Format(format) {
		return "", fmt.Errorf("format %q is neither a known format name nor a Go layout (write layouts with the reference time Mon Jan 2 15:04:05 MST 2006)", format)
	}
	return t.Format(format), nil
}

var offsetZone = regexp.MustCompile(`^([+-])(\d{2}):?(\d{2})$`)

// loadZone returns the location of a zone argument; empty means UTC.
func loadZone(zone string) (*time.Location, error) {
	if m := offsetZone.FindStringSubmatch(zone); m != nil {
		hours, _ := strconv.Atoi(m[2])
		minutes, _ := strconv.Atoi(m[3])
		if hours > 14 || minutes > 59 {
			return nil, fmt.Errorf("offset %q is out of range", zone)
		}
		offset := hours*3600 + minutes*60
		if m[1] == "-" {
			offset = -offset
		}
		return time.FixedZone(zone, offset), nil
	}
	if loc, ok := zones.Load(zone); ok {
		return loc.(*time.Location), nil
	}
	loc, err := time.LoadLocation(zone)
	if err != nil {
		return nil, fmt.Errorf("unknown time zone %q: use an IANA name such as \"Europe/Paris\", \"UTC\" or an offset such as \"+05:30\"", zone)
	}
	zones.Store(zone, loc)
	return loc, nil
}

// zones caches the locations loaded by name: loading one reads and parses
// its zone file. Only the names of real zones, a bounded set, are kept.
var zones sync.Map

// zoneName is the name a location is reported by: the argument as given,
// or UTC for an empty one.
func zoneName(zone string) string {
	if zone == "" {
		return "UTC"
	}
	return zone
}

// inputLayouts are the layouts a time argument may have, the most common
// first.
var inputLayouts = []string{
	time.RFC3339Nano,
	"2006-01-02T15:04:05.999999999",
	"2006-01-02T15:04",
	"2006-01-02 15:04:05.999999999Z07:00",
	"2006-01-02 15:04:05.999999999",
	"2006-01-02 15:04",
	time.DateOnly,
	time.RFC1123,
	time.RFC1123Z,
	time.RFC850,
	time.ANSIC,
}

// unixSeconds matches Unix times of 9 to 12 digits, so that a year or
// another short number is not taken for one.
var unixSeconds = regexp.MustCompile(`^-?\d{9,12}(\.\d{1,9})?$`)

// parseTime reads a time argument; a time without offset is read in loc.
func parseTime(s string, loc *time.Location, now func() time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "now") {
		return now().In(loc), nil
	}
	if unixSeconds.MatchString(s) {
		secs, err := strconv.ParseFloat(s, 64)
		if err == nil {
			whole, frac := math.Modf(secs)
			return time.Unix(int64(whole), int64(math.Round(frac*1e9))).In(loc), nil
		}
	}
	for _, layout := range inputLayouts {
		t, err := time.ParseInLocation(layout, s, loc)
		if err != nil {
			continue
		}
		// Go reads a zone abbreviation it does not know in loc as UTC
		// under that name: refuse rather than be wrong by hours.
		if name, offset := t.Zone(); offset == 0 && strings.Contains(layout, "MST") && name != "UTC" && name != "GMT" {
			return time.Time{}, fmt.Errorf("cannot tell the offset of the time zone abbreviation %q in %q: give a numeric offset such as -0800, or the zone's name as the zone argument", name, s)
		}
		return t, nil
	}
	return time.Time{}, fmt.Errorf("cannot read time %q: use RFC 3339 such as \"2024-03-10T14:30:00Z\", a date such as \"2024-03-10\", \"2024-03-10 14:30\", Unix seconds or \"now\"", s)
}

type nowInput struct {
	Timezone string `json:"timezone,omitempty"`
	Format   string `json:"format,omitempty"`
}

func timeNowTool(cfg *config) (Tool, error) {
	return newTool(spec{
		namespace: "time",
		name:      "now",
		title:     "Current time",
		description: "Get the current date and time in any time zone, for questions such as \"what time is it in Lima\" or \"what day is it\": " +
			"ISO 8601/RFC 3339 text, Unix seconds, the zone's abbreviation and UTC offset, and the day of the week. " +
			"Use it whenever the answer depends on today's date or the time of day.",
		tags: timeTags,
		input: func(props map[string]*jsonschema.Schema) {
			formatProperty(props)
			props["timezone"].Description = "The time zone to express the time in (default UTC). " + zoneDescription
		},
		examples: []Example{
			{Name: "utc", Description: "The current time in UTC.", Args: map[string]any{}},
			{Name: "tokyo", Description: "The current time in Tokyo.", Args: map[string]any{"timezone": "Asia/Tokyo"}},
			{Name: "custom-format", Description: "Today's date in New York, written out.", Args: map[string]any{"timezone": "America/New_York", "format": "Monday 2 January 2006"}},
		},
	}, func(_ context.Context, in nowInput) (timeInfo, error) {
		loc, err := loadZone(in.Timezone)
		if err != nil {
			return timeInfo{}, err
		}
		return describeTime(cfg.now().In(loc), zoneName(in.Timezone), in.Format)
	})
}

// formatProperty documents the format argument, shared by the time tools.
func formatProperty(props map[string]*jsonschema.Schema) {
	props["format"].Description = formatDescription
	props["format"].Default = []byte(`"rfc3339"`)
}

type convertInput struct {
	Time   string `json:"time"`
	From   string `json:"from,omitempty"`
	To     string `json:"to"`
	Format string `json:"format,omitempty"`
}

func timeConvertTool(cfg *config) (Tool, error) {
	return newTool(spec{
		namespace: "time",
		name:      "convert",
		title:     "Convert a time between time zones",
		description: "Convert a date and time to another time zone, taking daylight saving time into account, " +
			"such as a meeting at 3pm London time for someone in Sydney. " +
			"Give the time with its offset (RFC 3339), or without one and say which zone it is in with \"from\".",
		tags: timeTags,
		input: func(props map[string]*jsonschema.Schema) {
			formatProperty(props)
			props["time"].Description = timeInputDescription
			props["from"].Description = "The time zone of a time written without offset (default UTC). " + zoneDescription
			props["to"].Description = "The time zone to convert to. " + zoneDescription
		},
		examples: []Example{
			{Name: "meeting", Description: "A meeting at 9:30 in New York, in Paris time.", Args: map[string]any{"time": "2024-07-01 09:30", "from": "America/New_York", "to": "Europe/Paris"}},
			{Name: "utc-to-india", Description: "A UTC timestamp in India's time, as a date and time.", Args: map[string]any{"time": "2024-03-10T14:30:00Z", "to": "Asia/Kolkata", "format": "datetime"}},
		},
	}, func(_ context.Context, in convertInput) (timeInfo, error) {
		from, err := loadZone(in.From)
		if err != nil {
			return timeInfo{}, err
		}
		to, err := loadZone(in.To)
		if err != nil {
			return timeInfo{}, err
		}
		t, err := parseTime(in.Time, from, cfg.now)
		if err != nil {
			return timeInfo{}, err
		}
		return describeTime(t.In(to), zoneName(in.To), in.Format)
	})
}

type addInput struct {
	Time     string `json:"time,omitempty"`
	Timezone string `json:"timezone,omitempty"`
	Years    int    `json:"years,omitempty" jsonschema:"Years to add; negative to subtract."`
	Months   int    `json:"months,omitempty" jsonschema:"Months to add; negative to subtract."`
	Days     int    `json:"days,omitempty" jsonschema:"Days to add; negative to subtract."`
	Duration string `json:"duration,omitempty" jsonschema:"An exact duration to add after the calendar units, in Go syntax: \"1h30m\", \"90s\", \"-45m\", \"1.5h\" (units h, m, s, ms)."`
	Format   string `json:"format,omitempty"`
}

func timeAddTool(cfg *config) (Tool, error) {
	return newTool(spec{
		namespace: "time",
		name:      "add",
		title:     "Add to or subtract from a time",
		description: "Add years, months, days and an exact duration to a time (or subtract them with negative values), " +
			"for questions such as \"what date is 90 days from now\", \"what day of the week is it in 100 days\" or \"the time 2h45m before the deadline\". " +
			"Calendar units follow the wall clock of the time zone, across daylight saving changes; " +
			"adding months to the 31st ends on the last day of a shorter month (January 31 + 1 month = February 28 or 29).",
		tags: timeTags,
		input: func(props map[string]*jsonschema.Schema) {
			formatProperty(props)
			props["time"].Description = "The time to start from (default now). " + timeInputDescription
			props["timezone"].Description = "The time zone of the calculation and the result, and of a time written without offset (default UTC). " + zoneDescription
		},
		examples: []Example{
			{Name: "ninety-days", Description: "The date 90 days after March 1st 2024.", Args: map[string]any{"time": "2024-03-01", "days": 90, "format": "date"}},
			{Name: "end-of-month", Description: "One month after January 31st, a leap year.", Args: map[string]any{"time": "2024-01-31", "months": 1, "format": "date"}},
			{Name: "deadline", Description: "The time 2h45m before a deadline in Berlin.", Args: map[string]any{"time": "2024-06-14T18:00:00", "timezone": "Europe/Berlin", "duration": "-2h45m"}},
		},
	}, func(_ context.Context, in addInput) (timeInfo, error) {
		loc, err := loadZone(in.Timezone)
		if err != nil {
			return timeInfo{}, err
		}
		start := "now"
		if in.Time != "" {
			start = in.Time
		}
		t, err := parseTime(start, loc, cfg.now)
		if err != nil {
			return timeInfo{}, err
		}
		var d time.Duration
		if in.Duration != "" {
			if d, err = time.ParseDuration(in.Duration); err != nil {
				return timeInfo{}, fmt.Errorf("cannot read duration %q: write it like \"1h30m\" or \"-45s\"", in.Duration)
			}
		}
		t = addCalendar(t.In(loc), in.Years, in.Months, in.Days).Add(d)
		return describeTime(t, zoneName(in.Timezone), in.Format)
	})
}

// addCalendar adds years, months and days to t's wall clock, keeping the
// day of the month within the target month, so that January 31 plus one
// month is the last day of February.
func addCalendar(t time.Time, years, months, days int) time.Time {
	y, m, d := t.Date()
	target := time.Date(y+years, m+time.Month(months), 1, 0, 0, 0, 0, time.UTC)
	d = min(d, daysIn(target.Year(), target.Month()))
	hour, minute, sec := t.Clock()
	return time.Date(target.Year(), target.Month(), d+days, hour, minute, sec, t.Nanosecond(), t.Location())
}

// daysIn returns the number of days of a month.
func daysIn(year int, month time.Month) int {
	return time.Date(year, month+1, 0, 0, 0, 0, 0, time.UTC).Day()
}

type diffInput struct {
	From     string `json:"from"`
	To       string `json:"to"`
	Timezone string `json:"timezone,omitempty"`
}

type calendarSpan struct {
	Years   int `json:"years" jsonschema:"Whole years."`
	Months  int `json:"months" jsonschema:"Whole months after the years."`
	Days    int `json:"days" jsonschema:"Whole days after the months."`
	Hours   int `json:"hours" jsonschema:"Whole hours after the days."`
	Minutes int `json:"minutes" jsonschema:"Whole minutes after the hours."`
	Seconds int `json:"seconds" jsonschema:"Whole seconds after the minutes."`
}

type diffOutput struct {
	Seconds  float64      `json:"seconds" jsonschema:"The exact difference to - from in seconds; negative when to is before from."`
	Days     float64      `json:"days" jsonschema:"The exact difference in days of 24 hours, with a fraction; negative when to is before from."`
	Duration string       `json:"duration" jsonschema:"The exact difference in Go duration syntax, such as 36h30m0s."`
	Calendar calendarSpan `json:"calendar" jsonschema:"The size of the difference in calendar units, as for an age: the whole years, months and days that time:add adds to the earlier time without passing the later one, then the hours, minutes and seconds left."`
	Human    string       `json:"human" jsonschema:"The size of the difference in words, such as \"1 year 2 months 3 days\"."`
}

func timeDiffTool(cfg *config) (Tool, error) {
	return newTool(spec{
		namespace: "time",
		name:      "diff",
		title:     "Time between two dates",
		description: "Compute the time between two dates or times: exact seconds and days, and years, months, days, hours, minutes and seconds " +
			"as on a calendar, for ages, countdowns and elapsed time (\"how many days until 25 December\", \"how long ago was 20 July 1969\", " +
			"\"how old is someone born in 1990\"). " +
			"Use \"now\" for either end.",
		tags: timeTags,
		input: func(props map[string]*jsonschema.Schema) {
			props["from"].Description = "The start. " + timeInputDescription
			props["to"].Description = "The end. " + timeInputDescription
			props["timezone"].Description = "The time zone of times written without offset and of the calendar calculation (default UTC). " + zoneDescription
		},
		examples: []Example{
			{Name: "age", Description: "The age of someone born on 1990-05-17, on 2024-03-10.", Args: map[string]any{"from": "1990-05-17", "to": "2024-03-10"}},
			{Name: "elapsed", Description: "How long a job ran.", Args: map[string]any{"from": "2024-03-10T08:15:00Z", "to": "2024-03-10T11:47:30Z"}},
			{Name: "countdown", Description: "The time left until a date.", Args: map[string]any{"from": "now", "to": "2030-01-01", "timezone": "Europe/Paris"}},
		},
	}, func(_ context.Context, in diffInput) (diffOutput, error) {
		loc, err := loadZone(in.Timezone)
		if err != nil {
			return diffOutput{}, err
		}
		from, err := parseTime(in.From, loc, cfg.now)
		if err != nil {
			return diffOutput{}, err
		}
		to, err := parseTime(in.To, loc, cfg.now)
		if err != nil {
			return diffOutput{}, err
		}
		d := to.Sub(from)
		start, end := from.In(loc), to.In(loc)
		if end.Before(start) {
			start, end = end, start
		}
		span := calendarDiff(start, end)
		return diffOutput{
			Seconds:  d.Seconds(),
			Days:     d.Hours() / 24,
			Duration: d.String(),
			Calendar: span,
			Human:    span.human(),
		}, nil
	})
}

// calendarDiff returns the calendar units between a and b, a not after
// b: the most whole months, then days, that time:add can add to a without
// passing b (so that adding them back leads from a to b), and the rest in
// hours, minutes and seconds.
func calendarDiff(a, b time.Time) calendarSpan {
	// Adding the difference of the month numbers lands in b's month, and
	// may pass b by less than a month.
	months := (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
	if months > 0 && addCalendar(a, 0, months, 0).After(b) {
		months--
	}
	mid := addCalendar(a, 0, months, 0)
	// Days are 23 to 25 hours long across daylight saving changes: start
	// from the count of 24 hours and correct it.
	days := int(b.Sub(mid) / (24 * time.Hour))
	for !addCalendar(mid, 0, 0, days+1).After(b) {
		days++
	}
	for days > 0 && addCalendar(mid, 0, 0, days).After(b) {
		days--
	}
	rest := b.Sub(addCalendar(mid, 0, 0, days))
	return calendarSpan{
		Years:   months / 12,
		Months:  months % 12,
		Days:    days,
		Hours:   int(rest / time.Hour),
		Minutes: int(rest % time.Hour / time.Minute),
		Seconds: int(rest % time.Minute / time.Second),
	}
}

// human writes the span in words, leaving out zero units.
func (s calendarSpan) human() string {
	var parts []string
	for _, u := range []struct {
		n    int
		unit string
	}{{s.Years, "year"}, {s.Months, "month"}, {s.Days, "day"}, {s.Hours, "hour"}, {s.Minutes, "minute"}, {s.Seconds, "second"}} {
		switch u.n {
		case 0:
		case 1:
			parts = append(parts, "1 "+u.unit)
		default:
			parts = append(parts, fmt.Sprintf("%d %ss", u.n, u.unit))
		}
	}
	if len(parts) == 0 {
		return "0 seconds"
	}
	return strings.Join(parts, " ")
}
