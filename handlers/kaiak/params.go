package kaiak

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strings"
)

// Params arrive as raw JSON, so that the request size limit and every field's
// type are checked here, each with a message naming the field.

// object decodes raw params into an object, enforcing the request size
// limit. Absent or null params are an empty object.
func object(raw json.RawMessage) (obj, error) {
	if len(raw) > MaxRequestBytes {
		return nil, limitError("requestBytes", map[string]any{"bytes": len(raw), "max": MaxRequestBytes},
			"request payload limit exceeded: the params are %d bytes; the limit is 10 MB (%d bytes)", len(raw), MaxRequestBytes)
	}
	t := bytes.TrimSpace(raw)
	if len(t) == 0 || bytes.Equal(t, []byte("null")) {
		return obj{}, nil
	}
	var o map[string]json.RawMessage
	if err := json.Unmarshal(t, &o); err != nil || o == nil {
		return nil, invalid(nil, "invalid params: want an object")
	}
	return obj(o), nil
}

// obj is a decoded params object; its accessors report the field's path in
// their errors.
type obj map[string]json.RawMessage

func (o obj) has(key string) bool {
	v, ok := o[key]
	return ok && !bytes.Equal(bytes.TrimSpace(v), []byte("null"))
}

// str reads a string field; absent is "".
func (o obj) str(path, key string) (string, error) {
	if !o.has(key) {
		return "", nil
	}
	var s string
	if err := json.Unmarshal(o[key], &s); err != nil {
		return "", invalid(map[string]any{"field": path + key}, "invalid params: %s%s must be a string", path, key)
	}
	return s, nil
}

// required reads a string field that must be present and not blank.
func (o obj) required(path, key string) (string, error) {
	s, err := o.str(path, key)
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(s) == "" {
		return "", invalid(map[string]any{"field": path + key}, "invalid params: %s%s is required", path, key)
	}
	return s, nil
}

// number reads a numeric field; ok is false when absent.
func (o obj) number(path, key string) (v float64, ok bool, err error) {
	if !o.has(key) {
		return 0, false, nil
	}
	if err := json.Unmarshal(o[key], &v); err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, false, invalid(map[string]any{"field": path + key}, "invalid params: %s%s must be a number", path, key)
	}
	return v, true, nil
}

// integer reads an integer field within [lo, hi]; ok is false when absent.
func (o obj) integer(path, key string, lo, hi int) (n int, ok bool, err error) {
	v, ok, err := o.number(path, key)
	if !ok && err == nil {
		return 0, false, nil
	}
	if err != nil || v != math.Trunc(v) || v < float64(lo) || v > float64(hi) {
		return 0, false, invalid(map[string]any{"field": path + key, "min": lo, "max": hi},
			"invalid params: %s%s must be an integer from %d to %d", path, key, lo, hi)
	}
	return int(v), true, nil
}

// boolean reads a boolean field; ok is false when absent.
func (o obj) boolean(path, key string) (b, ok bool, err error) {
	if !o.has(key) {
		return false, false, nil
	}
	if err := json.Unmarshal(o[key], &b); err != nil {
		return false, false, invalid(map[string]any{"field": path + key}, "invalid params: %s%s must be a boolean", path, key)
	}
	return b, true, nil
}

// sub reads an object field; absent is nil.
func (o obj) sub(path, key string) (obj, error) {
	if !o.has(key) {
		return nil, nil
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(o[key], &m); err != nil || m == nil {
		return nil, invalid(map[string]any{"field": path + key}, "invalid params: %s%s must be an object", path, key)
	}
	return obj(m), nil
}

// list reads an array field; ok is false when absent.
func (o obj) list(path, key string) (items []json.RawMessage, ok bool, err error) {
	if !o.has(key) {
		return nil, false, nil
	}
	if err := json.Unmarshal(o[key], &items); err != nil {
		return nil, false, invalid(map[string]any{"field": path + key}, "invalid params: %s%s must be an array", path, key)
	}
	return items, true, nil
}

// anyValue decodes a field as a generic JSON value; absent is nil.
func (o obj) anyValue(key string) any {
	if !o.has(key) {
		return nil
	}
	var v any
	_ = json.Unmarshal(o[key], &v)
	return v
}

func quote(s string) string { return fmt.Sprintf("%q", s) }
