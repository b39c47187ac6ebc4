package kward_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis/host"
	"github.com/kast-dev/kast/handlers"
	"github.com/kast-dev/kast/server"
)

const (
	benchSessions = 50
	benchDeltas   = 2000
)

// BenchmarkKwardStreaming: 50 sessions each stream 2,000 deltas at once from
// a loopback provider to one Kward client. Each delta carries the time the
// provider wrote it, so the client measures provider byte → notification.
//
//	go test -run '^$' -bench KwardStreaming ./handlers/
func BenchmarkKwardStreaming(b *testing.B) {
	model := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		f := w.(http.Flusher)
		for range benchDeltas {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":\"%d \"},\"index\":0}]}\n\n", time.Now().UnixNano())
			f.Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}))
	defer model.Close()
	kwardEnv(b, model.URL)

	for b.Loop() {
		events, latencies, elapsed := streamAll(b)
		slices.Sort(latencies)
		p := func(q float64) float64 {
			return float64(latencies[int(q*float64(len(latencies)-1))]) / float64(time.Millisecond)
		}
		b.ReportMetric(float64(events)/elapsed.Seconds(), "events/s")
		b.ReportMetric(p(0.50), "p50-ms")
		b.ReportMetric(p(0.99), "p99-ms")
	}
}

// streamAll runs one turn in each of benchSessions sessions and reads every
// notification until all turns finished.
func streamAll(b *testing.B) (events int, latencies []time.Duration, elapsed time.Duration) {
	entry := handlers.KwardRPC(handlers.NewProcess(host.New(host.Options{})))
	srv := server.New(entry.Options("test", nil))
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	conn := srv.Serve(context.Background(), pipeConn{sr, sw, func() error { sr.Close(); return sw.Close() }})
	defer func() { cw.Close(); <-conn.Done() }()

	rc := &rawClient{w: cw, replies: map[int]chan json.RawMessage{}}
	finished := make(chan struct{})
	go rc.read(bufio.NewReaderSize(cr, 1<<20), benchSessions, func(n int, lat []time.Duration) {
		events, latencies = n, lat
		close(finished)
	})
	workspace := b.TempDir()
	sessions := make([]string, benchSessions)
	for i := range sessions {
		var s struct{ ID string }
		json.Unmarshal(rc.call(b, "sessions/create", map[string]any{"workspaceRoot": workspace}), &s)
		sessions[i] = s.ID
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, id := range sessions {
		wg.Go(func() { rc.call(b, "turns/start", map[string]any{"sessionId": id, "input": "stream"}) })
	}
	wg.Wait()
	select {
	case <-finished:
	case <-time.After(5 * time.Minute):
		b.Fatal("turns did not finish")
	}
	return events, latencies, time.Since(start)
}

type pipeConn struct {
	io.Reader
	io.Writer
	close func() error
}

func (p pipeConn) Close() error { return p.close() }

// rawClient is a minimal Content-Length client that timestamps each
// notification as it is read, without buffering them.
type rawClient struct {
	w       io.Writer
	wmu     sync.Mutex
	mu      sync.Mutex
	nextID  int
	replies map[int]chan json.RawMessage
}

func (c *rawClient) call(b *testing.B, method string, params any) json.RawMessage {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	ch := make(chan json.RawMessage, 1)
	c.replies[id] = ch
	c.mu.Unlock()
	body, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	c.wmu.Lock()
	fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n%s", len(body), body)
	c.wmu.Unlock()
	select {
	case res := <-ch:
		return res
	case <-time.After(time.Minute):
		b.Fatalf("%s: no reply", method)
		return nil
	}
}

// read dispatches replies and measures assistantDelta latency until turns
// turnFinished events arrived.
func (c *rawClient) read(r *bufio.Reader, turns int, done func(events int, latencies []time.Duration)) {
	var latencies []time.Duration
	events, finished := 0, 0
	tp := textproto.NewReader(r)
	for {
		hdr, err := tp.ReadMIMEHeader()
		if err != nil {
			return
		}
		n, _ := strconv.Atoi(hdr.Get("Content-Length"))
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		now := time.Now()
		var msg struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Params struct {
				Type    string `json:"type"`
				Payload struct {
					Delta string `json:"delta"`
				} `json:"payload"`
			} `json:"params"`
		}
		json.Unmarshal(body, &msg)
		if msg.ID != nil {
			c.mu.Lock()
			ch := c.replies[*msg.ID]
			c.mu.Unlock()
			ch <- msg.Result
			continue
		}
		events++
		switch msg.Params.Type {
		case "assistantDelta":
			var sent int64
			fmt.Sscan(msg.Params.Payload.Delta, &sent)
			latencies = append(latencies, now.Sub(time.Unix(0, sent)))
		case "turnFinished":
			if finished++; finished == turns {
				done(events, latencies)
				return
			}
		}
	}
}
