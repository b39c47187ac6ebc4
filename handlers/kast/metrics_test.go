package kast

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// TestKastMetrics runs every metric on the Kotlin fixture; limit bounds
// each one.
func TestKastMetrics(t *testing.T) {
	e := newKastEnv(t, "kotlin.txtar")
	metric := func(params map[string]any) map[string]any {
		t.Helper()
		var m map[string]any
		e.ok("database/metrics", params, &m)
		if params["metric"] != nil && m["schemaVersion"] != 3.0 {
			t.Errorf("no schemaVersion: %v", m)
		}
		return m
	}
	rows := func(m map[string]any) []map[string]any {
		t.Helper()
		if m["type"] != "METRICS_SUCCESS" {
			t.Fatalf("got %v", m)
		}
		var out []map[string]any
		b, _ := json.Marshal(m["results"])
		_ = json.Unmarshal(b, &out)
		return out
	}

	in := rows(metric(map[string]any{"metric": "fanIn"}))
	if len(in) == 0 || in[0]["targetFqName"] != "sample.greet" || in[0]["occurrenceCount"] != 2.0 || in[0]["sourceFileCount"] != 2.0 {
		t.Errorf("fanIn: %v", in)
	}
	if got := rows(metric(map[string]any{"metric": "fanIn", "limit": 1})); len(got) != 1 {
		t.Errorf("fanIn limit 1: %d rows", len(got))
	}
	if got := rows(metric(map[string]any{"metric": "fanIn", "folderFilter": "src/main/kotlin/example"})); len(got) == 0 || !strings.HasPrefix(got[0]["targetFqName"].(string), "example.") {
		t.Errorf("fanIn in example/: %v", got)
	}
	out := rows(metric(map[string]any{"metric": "fanOut", "fileGlob": "**/sample/*Use.kt"}))
	if len(out) != 2 || out[0]["occurrenceCount"] != 1.0 {
		t.Errorf("fanOut over the Use files: %v", out)
	}
	dead := rows(metric(map[string]any{"metric": "deadCode"}))
	names := map[string]bool{}
	for _, r := range dead {
		names[r["fqName"].(string)] = true
	}
	if !names["sample.use"] || !names["sample.useAgain"] || names["sample.greet"] {
		t.Errorf("deadCode: %v", names)
	}
	if got := rows(metric(map[string]any{"metric": "deadCode", "limit": 2})); len(got) != 2 {
		t.Errorf("deadCode limit 2: %d rows", len(got))
	}
	impact := rows(metric(map[string]any{"metric": "impact", "symbol": "greet", "depth": 2}))
	if len(impact) != 2 || impact[0]["depth"] != 1.0 || impact[0]["viaTargetFqName"] != "sample.greet" {
		t.Errorf("impact of greet: %v", impact)
	}
	// sample/ and example/ do not reference each other.
	if got := rows(metric(map[string]any{"metric": "coupling"})); len(got) != 0 {
		t.Errorf("coupling between folders that reference nothing of each other: %v", got)
	}
	var found []string
	b, _ := json.Marshal(metric(map[string]any{"metric": "search", "symbol": "greet", "limit": 3})["results"])
	_ = json.Unmarshal(b, &found)
	if len(found) != 3 || found[0] != "sample.greet" {
		t.Errorf("search greet: %v", found)
	}
	// offset pages through the rows (Kast's later catalog).
	all := rows(metric(map[string]any{"metric": "deadCode"}))
	if page := rows(metric(map[string]any{"metric": "deadCode", "limit": 2, "offset": 1})); len(all) < 3 || len(page) != 2 ||
		page[0]["fqName"] != all[1]["fqName"] || page[1]["fqName"] != all[2]["fqName"] {
		t.Errorf("deadCode offset 1 limit 2: %v of %v", page, all)
	}
	// Kast's reader writes absent optionals as null.
	m := metric(map[string]any{"metric": "fanIn", "limit": 1})
	q := m["query"].(map[string]any)
	for _, field := range []string{"workspaceRoot", "symbol", "fileGlob", "folderFilter"} {
		if v, ok := q[field]; !ok || (field != "workspaceRoot" && v != nil) {
			t.Errorf("query.%s: %v present %v, want it written (null when absent)", field, v, ok)
		}
	}
	for _, field := range []string{"targetPath", "targetModulePath", "targetSourceSet"} {
		if _, ok := rows(m)[0][field]; !ok {
			t.Errorf("fanIn row lacks %s: %v", field, rows(m)[0])
		}
	}

	// Bad arguments, a missing metric and graph (which Kast's RPC path
	// reports unsupported) are METRICS_FAILURE results.
	for _, params := range []map[string]any{{"metric": "bogus"}, {"metric": "impact"}, {"metric": "fanIn", "limit": 0}, {},
		{"metric": "graph", "symbol": "sample.greet"}} {
		if m := metric(params); m["type"] != "METRICS_FAILURE" || m["ok"] != false || m["stage"] != "validate" {
			t.Errorf("%v: got %v", params, m)
		}
	}
	if m := metric(map[string]any{"metric": "graph", "symbol": "greet"}); !strings.Contains(m["message"].(string), "METRICS_UNSUPPORTED") {
		t.Errorf("graph: %v", m)
	}
	e.fails("database/metrics", map[string]any{"metric": "fanIn", "extra": 1}, -32400, "VALIDATION_ERROR")
}

// TestKastCoupling counts references between modules (folders): Go
// packages app → store → util, Kotlin folders app → lib, where app reaches
// one internal function of lib (imported and called: two leaks).
func TestKastCoupling(t *testing.T) {
	e := newKastEnv(t, "coupling.txtar")
	coupling := func(params map[string]any) []couplingRow {
		t.Helper()
		var m struct {
			Type    string        `json:"type"`
			Results []couplingRow `json:"results"`
		}
		e.ok("database/metrics", params, &m)
		if m.Type != "METRICS_SUCCESS" {
			t.Fatalf("%v: %+v", params, m)
		}
		return m.Results
	}
	kotlin := couplingRow{"src/main/kotlin/app", "main", "src/main/kotlin/lib", "main", 4, 2, 2, map[string]int{"CALL": 2, "IMPORT": 2}}
	goApp := couplingRow{"app", "", "store", "", 3, 3, 0, map[string]int{"CALL": 2, "TYPE_REF": 1}}
	goStore := couplingRow{"store", "", "util", "", 1, 1, 0, map[string]int{"CALL": 1}}
	for _, tc := range []struct {
		params map[string]any
		want   []couplingRow
	}{
		{map[string]any{"metric": "coupling"}, []couplingRow{kotlin, goApp, goStore}},
		{map[string]any{"metric": "coupling", "limit": 1}, []couplingRow{kotlin}},
		{map[string]any{"metric": "coupling", "folderFilter": "app"}, []couplingRow{goApp}},
		{map[string]any{"metric": "coupling", "fileGlob": "**/*.go"}, []couplingRow{goApp, goStore}},
	} {
		if got := coupling(tc.params); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%v:\n got  %+v\n want %+v", tc.params, got, tc.want)
		}
	}
}
