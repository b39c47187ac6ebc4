package storage

import (
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/kast-dev/kast/analysis"
)

// benchFacts is a file shaped like an average Go standard library file
// (measured with go/scanner: 620 identifiers over about 100 distinct names per
// file): 40 definitions, 150 calls and 470 other references drawn from a
// per-file vocabulary of 100 names of a shared, Zipf-distributed vocabulary.
func benchFacts(rng *rand.Rand, i int) *analysis.FileFacts {
	global := rand.NewZipf(rng, 1.2, 4, 50000)
	vocab := make([]string, 100)
	for v := range vocab {
		vocab[v] = fmt.Sprintf("name%d", global.Uint64())
	}
	local := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	name := func() string { return vocab[local.Uint64()] }
	defs := make([]string, 40)
	for d := range defs {
		defs[d] = vocab[rng.IntN(len(vocab))]
		if d%10 == 0 {
			defs[d] += "<" + name()
		}
	}
	calls := make([]string, 150)
	for c := range calls {
		calls[c] = name()
	}
	f := fakeFacts(fmt.Sprint("file", i), defs, calls)
	for r := range 470 {
		f.Refs = append(f.Refs, analysis.Ref{Name: name(), Span: span(5000+r*10, 5000+r*10+6), Role: analysis.RoleRead, Enclosing: 1})
	}
	return f
}

func BenchmarkPutFiles(b *testing.B) {
	ix, err := Open("/w", Options{Dir: filepath.Join(b.TempDir(), "index")})
	if err != nil {
		b.Fatal(err)
	}
	defer ix.Close()
	rng := rand.New(rand.NewPCG(1, 2))
	facts := make([]*analysis.FileFacts, 512)
	for i := range facts {
		facts[i] = benchFacts(rng, i)
	}
	b.ResetTimer()
	var batch *Batch
	for i := range b.N {
		if batch == nil {
			batch = ix.NewBatch()
		}
		f := *facts[i%len(facts)]
		f.Hash = HashContent([]byte(fmt.Sprint("content", i)))
		if err := batch.PutFile(fmt.Sprintf("/w/pkg%d/file%d.go", i/50, i), time.Now(), &f); err != nil {
			b.Fatal(err)
		}
		if i%256 == 255 {
			if err := batch.Flush(); err != nil {
				b.Fatal(err)
			}
			batch = nil
		}
	}
	if batch != nil {
		if err := batch.Flush(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "files/s")
}
