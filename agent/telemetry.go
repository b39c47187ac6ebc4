package agent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Telemetry categories.
const (
	LogTokens      = "tokens"
	LogPerformance = "performance"
	LogTools       = "tools"
	LogErrors      = "errors"
)

// LogCategories are all telemetry categories.
var LogCategories = []string{LogTokens, LogPerformance, LogTools, LogErrors}

// maxLogBytes rotates a day's log file.
const maxLogBytes = 10 << 20

// Telemetry writes local JSONL telemetry: metadata only (sizes, durations,
// statuses, error codes), never message text or tool output, one file per
// UTC day under Dir, 0600.
type Telemetry struct {
	Dir string
	// Enabled returns the enabled categories; none means telemetry is off.
	Enabled func() []string

	mu      sync.Mutex
	started map[string]time.Time // turn id or tool call id → start
}

// Observe derives telemetry records from a turn event.
func (tl *Telemetry) Observe(ev Event) {
	enabled := tl.Enabled()
	if len(enabled) == 0 {
		return
	}
	on := func(c string) bool { return containsString(enabled, c) }
	switch ev.Kind {
	case EventStarted:
		tl.start(ev.TurnID, ev.Time)
	case EventToolCall:
		tl.start(ev.TurnID+"/"+ev.Tool.Call.ID, ev.Time)
	case EventToolResult:
		d := tl.elapsed(ev.TurnID+"/"+ev.Tool.Call.ID, ev.Time)
		if on(LogTools) {
			tl.write(LogTools, "tool_call", map[string]any{"tool": ev.Tool.Call.Name, "isError": ev.Tool.Result.IsError,
				"durationMs": d.Milliseconds(), "outputBytes": len(ev.Tool.Result.Content)})
		}
	case EventMessage:
		if u := ev.Message.Usage; u != nil && on(LogTokens) {
			tl.write(LogTokens, "model_usage", map[string]any{"provider": ev.Message.Provider, "model": ev.Message.Model,
				"inputTokens": u.InputTokens, "outputTokens": u.OutputTokens, "totalTokens": u.TotalTokens})
		}
	case EventRetry:
		if on(LogErrors) {
			tl.write(LogErrors, "model_retry", map[string]any{"provider": ev.Retry.Provider, "class": "ProviderError", "code": "TRANSIENT", "attempt": ev.Retry.Attempt})
		}
	case EventError:
		if on(LogErrors) {
			tl.write(LogErrors, "turn_error", map[string]any{"class": "TurnError", "code": ev.Err.Code})
		}
	case EventFinished:
		d := tl.elapsed(ev.TurnID, ev.Time)
		if on(LogPerformance) {
			tl.write(LogPerformance, "turn", map[string]any{"status": ev.Status, "durationMs": d.Milliseconds()})
		}
	}
}

// Record writes one record of category when it is enabled; fields must be
// metadata only.
func (tl *Telemetry) Record(category, event string, fields map[string]any) {
	if containsString(tl.Enabled(), category) {
		tl.write(category, event, fields)
	}
}

func (tl *Telemetry) start(key string, t time.Time) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if tl.started == nil {
		tl.started = map[string]time.Time{}
	}
	tl.started[key] = t
}

func (tl *Telemetry) elapsed(key string, t time.Time) time.Duration {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	start, ok := tl.started[key]
	delete(tl.started, key)
	if !ok {
		return 0
	}
	return t.Sub(start)
}

func (tl *Telemetry) write(category, event string, fields map[string]any) {
	rec := map[string]any{"timestamp": now(), "category": category, "event": event}
	for k, v := range fields {
		rec[k] = v
	}
	line, err := json.Marshal(rec)
	if err != nil {
		return
	}
	tl.mu.Lock()
	defer tl.mu.Unlock()
	if os.MkdirAll(tl.Dir, 0o700) != nil {
		return
	}
	day := time.Now().UTC().Format("2006-01-02")
	path := filepath.Join(tl.Dir, day+".jsonl")
	for n := 1; ; n++ {
		fi, err := os.Stat(path)
		if err != nil || fi.Size()+int64(len(line)) < maxLogBytes {
			break
		}
		path = filepath.Join(tl.Dir, fmt.Sprintf("%s.%d.jsonl", day, n))
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return
	}
	_, _ = f.Write(append(line, '\n'))
	f.Close()
}

var rangeRE = regexp.MustCompile(`(?i)^\s*(\d+)\s*(minute|hour|day|week|month|year)s?\s*$`)

// RangeUsage explains the range syntax in errors.
const RangeUsage = `use "<number> <unit>" with unit minutes, hours, days, weeks, months or years, e.g. "10 minutes", "2 days", "1 year"`

// ParseRange turns "2 days" into the start of the period, in UTC calendar
// periods for days and longer: "1 month" is the current month so far, "2
// months" adds the previous month.
func ParseRange(s string, now time.Time) (time.Time, error) {
	m := rangeRE.FindStringSubmatch(s)
	if m == nil {
		return time.Time{}, &InputError{fmt.Sprintf("invalid range %q: %s", s, RangeUsage)}
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n < 1 {
		return time.Time{}, &InputError{fmt.Sprintf("invalid range %q: the number must be at least 1; %s", s, RangeUsage)}
	}
	now = now.UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	switch strings.ToLower(m[2]) {
	case "minute":
		return now.Add(-time.Duration(n) * time.Minute), nil
	case "hour":
		return now.Add(-time.Duration(n) * time.Hour), nil
	case "day":
		return day.AddDate(0, 0, -(n - 1)), nil
	case "week":
		monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
		return monday.AddDate(0, 0, -7*(n-1)), nil
	case "month":
		return time.Date(now.Year(), now.Month()-time.Month(n-1), 1, 0, 0, 0, 0, time.UTC), nil
	default:
		return time.Date(now.Year()-(n-1), 1, 1, 0, 0, 0, 0, time.UTC), nil
	}
}

// LogStats summarizes telemetry since a time, for enabled categories only.
type LogStats struct {
	Records     map[string]int            `json:"records"` // by category
	Events      map[string]int            `json:"events"`  // by category/event
	Usage       UsageStats                `json:"usageStats"`
	Performance map[string]DurationStats  `json:"performance"` // by event
	Tools       map[string]ToolStats      `json:"tools"`       // by tool
	Errors      map[string]map[string]int `json:"errors"`      // byEvent, byClass, byProvider, byCode
}

// UsageStats totals token usage.
type UsageStats struct {
	Requests     int   `json:"requests"`
	InputTokens  int64 `json:"inputTokens"`
	OutputTokens int64 `json:"outputTokens"`
	TotalTokens  int64 `json:"totalTokens"`
}

// DurationStats summarizes durations in milliseconds.
type DurationStats struct {
	Count int   `json:"count"`
	AvgMs int64 `json:"avgMs"`
	P50Ms int64 `json:"p50Ms"`
	P95Ms int64 `json:"p95Ms"`
	MaxMs int64 `json:"maxMs"`
}

// ToolStats summarizes one tool's calls.
type ToolStats struct {
	Calls  int   `json:"calls"`
	Errors int   `json:"errors"`
	AvgMs  int64 `json:"avgMs"`
}

// Stats reads the records written since since.
func (tl *Telemetry) Stats(since time.Time) (LogStats, error) {
	st := LogStats{Records: map[string]int{}, Events: map[string]int{}, Performance: map[string]DurationStats{},
		Tools: map[string]ToolStats{}, Errors: map[string]map[string]int{"byEvent": {}, "byClass": {}, "byProvider": {}, "byCode": {}}}
	enabled := tl.Enabled()
	files, _ := filepath.Glob(filepath.Join(tl.Dir, "*.jsonl"))
	firstDay := since.UTC().Format("2006-01-02")
	durations := map[string][]int64{}
	toolMs := map[string]int64{}
	for _, path := range files {
		if filepath.Base(path)[:min(10, len(filepath.Base(path)))] < firstDay {
			continue
		}
		f, err := os.Open(path)
		if err != nil {
			return st, err
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			var r struct {
				Timestamp    string `json:"timestamp"`
				Category     string `json:"category"`
				Event        string `json:"event"`
				Provider     string `json:"provider"`
				Class        string `json:"class"`
				Code         string `json:"code"`
				Tool         string `json:"tool"`
				IsError      bool   `json:"isError"`
				DurationMs   int64  `json:"durationMs"`
				InputTokens  int64  `json:"inputTokens"`
				OutputTokens int64  `json:"outputTokens"`
				TotalTokens  int64  `json:"totalTokens"`
			}
			if json.Unmarshal(sc.Bytes(), &r) != nil || !containsString(enabled, r.Category) {
				continue
			}
			if ts, err := time.Parse(TimeFormat, r.Timestamp); err != nil || ts.Before(since) {
				continue
			}
			st.Records[r.Category]++
			st.Events[r.Category+"/"+r.Event]++
			switch r.Category {
			case LogTokens:
				st.Usage.Requests++
				st.Usage.InputTokens += r.InputTokens
				st.Usage.OutputTokens += r.OutputTokens
				st.Usage.TotalTokens += r.TotalTokens
			case LogPerformance:
				durations[r.Event] = append(durations[r.Event], r.DurationMs)
			case LogTools:
				ts := st.Tools[r.Tool]
				ts.Calls++
				if r.IsError {
					ts.Errors++
				}
				st.Tools[r.Tool] = ts
				toolMs[r.Tool] += r.DurationMs
			case LogErrors:
				st.Errors["byEvent"][r.Event]++
				st.Errors["byClass"][r.Class]++
				if r.Provider != "" {
					st.Errors["byProvider"][r.Provider]++
				}
				if r.Code != "" {
					st.Errors["byCode"][r.Code]++
				}
			}
		}
		f.Close()
	}
	for name, ts := range st.Tools {
		ts.AvgMs = toolMs[name] / int64(ts.Calls)
		st.Tools[name] = ts
	}
	for event, ds := range durations {
		sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
		var sum int64
		for _, d := range ds {
			sum += d
		}
		st.Performance[event] = DurationStats{Count: len(ds), AvgMs: sum / int64(len(ds)),
			P50Ms: ds[len(ds)/2], P95Ms: ds[min(len(ds)-1, len(ds)*95/100)], MaxMs: ds[len(ds)-1]}
	}
	return st, nil
}
