package document

import (
	"errors"
	"testing"
)

func TestPositionRoundTrip(t *testing.T) {
	d := New("file:///a.kt", "kotlin", 1, []byte("ab😀c\r\nxyz\n"))
	for _, tc := range []struct {
		enc    Encoding
		pos    Position
		offset int
	}{
		{UTF16, Position{0, 2}, 2},
		{UTF16, Position{0, 4}, 6}, // after the surrogate pair
		{UTF16, Position{0, 3}, 2}, // inside the pair: never split it
		{UTF8, Position{0, 6}, 6},
		{UTF32, Position{0, 3}, 6},
		{UTF16, Position{0, 99}, 7}, // clamped before "\r\n"
		{UTF16, Position{1, 1}, 10},
		{UTF16, Position{2, 0}, 13}, // the empty last line
	} {
		got, err := d.Offset(tc.pos, tc.enc)
		if err != nil || got != tc.offset {
			t.Errorf("%s %v: offset %d (%v), want %d", tc.enc, tc.pos, got, err, tc.offset)
		}
	}
	if p := d.Position(6, UTF16); p != (Position{0, 4}) {
		t.Errorf("Position(6, utf-16) = %v", p)
	}
	if p := d.Position(6, UTF8); p != (Position{0, 6}) {
		t.Errorf("Position(6, utf-8) = %v", p)
	}
	if p := d.Position(10, UTF32); p != (Position{1, 1}) {
		t.Errorf("Position(10, utf-32) = %v", p)
	}
	if _, err := d.Offset(Position{5, 0}, UTF16); !errors.Is(err, ErrPosition) {
		t.Errorf("line past the end: %v", err)
	}
	if _, err := d.Offset(Position{-1, 0}, UTF16); !errors.Is(err, ErrPosition) {
		t.Errorf("negative line: %v", err)
	}
}

func TestStoreChanges(t *testing.T) {
	s := NewStore()
	s.Open(New("u", "go", 1, []byte("hello\nworld\n")))
	before := s.Snapshot()
	r := Range{Start: Position{1, 0}, End: Position{1, 5}}
	if _, err := s.Change("u", 2, []Change{{Range: &r, Text: "there"}, {Range: &Range{Start: Position{0, 5}, End: Position{0, 5}}, Text: ","}}, UTF16); err != nil {
		t.Fatal(err)
	}
	after, _ := s.Snapshot().Document("u")
	if string(after.Text) != "hello,\nthere\n" || after.Version != 2 {
		t.Errorf("after changes: %q v%d", after.Text, after.Version)
	}
	if old, _ := before.Document("u"); string(old.Text) != "hello\nworld\n" {
		t.Errorf("an older snapshot changed: %q", old.Text)
	}
	if _, err := s.Change("u", 3, []Change{{Text: "whole"}}, UTF16); err != nil {
		t.Fatal(err)
	}
	if d, _ := s.Snapshot().Document("u"); string(d.Text) != "whole" {
		t.Errorf("full replacement: %q", d.Text)
	}
	bad := Range{Start: Position{9, 0}, End: Position{9, 1}}
	if _, err := s.Change("u", 4, []Change{{Range: &bad, Text: "x"}}, UTF16); !errors.Is(err, ErrPosition) {
		t.Errorf("change outside the document: %v", err)
	}
	if _, err := s.Change("missing", 1, nil, UTF16); !errors.Is(err, ErrNotOpen) {
		t.Errorf("change of unopened document: %v", err)
	}
	if err := s.Close("u"); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.Snapshot().Document("u"); ok {
		t.Error("closed document still in snapshot")
	}
}
