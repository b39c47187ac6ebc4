package main

import (
	"strings"
	"testing"
)

func TestFindDocsGo(t *testing.T) {
	src := `package p

// Atoi converts a decimal string to an int. It is ParseInt(s, 10, 0).
func Atoi(s string) (int, error) { return 0, nil }

// Close releases the reader's buffer and file.
//
//go:noinline
func (r *Reader) Close() error { return nil }

func undocumented() {}

// Hi.
func short() {}
`
	docs := findDocs("go", src)
	if len(docs) != 2 || docs[0].name != "Atoi" || docs[0].sentence != "Atoi converts a decimal string to an int." ||
		docs[1].name != "Close" || docs[1].sentence != "Close releases the reader's buffer and file." {
		t.Fatalf("docs = %+v", docs)
	}
	// The doc comment is what the corpus copy loses.
	if cut := src[:docs[0].start] + src[docs[0].end:]; strings.Contains(cut, "decimal") || !strings.Contains(cut, "func Atoi(") {
		t.Fatalf("after removal:\n%s", cut)
	}
}

func TestFindDocsPython(t *testing.T) {
	src := `class Session:
    def send(self, request,
             stream=False):
        """Send a prepared request over the session's adapter.

        Returns a Response.
        """
        return self.adapter.send(request)

    def close(self):
        return None
`
	docs := findDocs("python", src)
	if len(docs) != 1 || docs[0].name != "send" || docs[0].sentence != "Send a prepared request over the session's adapter." {
		t.Fatalf("docs = %+v", docs)
	}
	if cut := src[:docs[0].start] + src[docs[0].end:]; strings.Contains(cut, "adapter.\n") || !strings.Contains(cut, "return self.adapter.send(request)") {
		t.Fatalf("after removal:\n%s", cut)
	}
}
