package search

// A small randomized SVD (Halko, Martinsson and Tropp 2011) over a sparse
// matrix, written here rather than taken from gonum: it needs only sparse
// products, a Gram matrix and a symmetric eigensolver for matrices of a few
// hundred rows, and keeping it in the package leaves go.mod alone.

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sort"
	"sync"
)

// csr is a sparse matrix in compressed rows.
type csr struct {
	rows, cols int
	start      []int // row i's entries are [start[i], start[i+1])
	col        []int32
	val        []float32
}

// dense is a row-major rows × cols matrix.
type dense struct {
	rows, cols int
	a          []float64
}

func newDense(r, c int) *dense { return &dense{r, c, make([]float64, r*c)} }

func (d *dense) row(i int) []float64 { return d.a[i*d.cols : (i+1)*d.cols] }

// parallelRows runs fn over [0, n) split into one range per core.
func parallelRows(n int, fn func(worker, lo, hi int)) int {
	workers := max(1, min(runtime.GOMAXPROCS(0), n/256))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			fn(w, n*w/workers, n*(w+1)/workers)
		}()
	}
	wg.Wait()
	return workers
}

// mulT returns mᵀ·y, or mᵀ·Ω for a Gaussian Ω of width cols drawn from
// seed row by row when y is nil, so Ω is never held whole.
func (m *csr) mulT(y *dense, cols int, seed uint64) *dense {
	if y != nil {
		return m.transposeTimesRows(y.cols, func(i int, _ []float64) []float64 { return y.row(i) })
	}
	return m.transposeTimesRows(cols, func(i int, buf []float64) []float64 {
		rng := rand.New(rand.NewPCG(seed, uint64(i)))
		for t := range buf {
			buf[t] = rng.NormFloat64()
		}
		return buf
	})
}

// transposeTimesRows returns mᵀ·y for the matrix y whose row i row gives
// (into buf, or a row it already holds), in parallel over m's rows.
func (m *csr) transposeTimesRows(cols int, row func(i int, buf []float64) []float64) *dense {
	parts := make([]*dense, runtime.GOMAXPROCS(0))
	n := parallelRows(m.rows, func(w, lo, hi int) {
		z := newDense(m.cols, cols)
		parts[w] = z
		buf := make([]float64, cols)
		for i := lo; i < hi; i++ {
			yi := row(i, buf)
			for k := m.start[i]; k < m.start[i+1]; k++ {
				v := float64(m.val[k])
				zj := z.row(int(m.col[k]))
				for t, yv := range yi {
					zj[t] += v * yv
				}
			}
		}
	})
	for _, p := range parts[1:n] {
		for i, x := range p.a {
			parts[0].a[i] += x
		}
	}
	return parts[0]
}

// gram returns aᵀ·a.
func (d *dense) gram() *dense {
	return gramOfRows(d.rows, d.cols, func(i int, _ []float64) []float64 { return d.row(i) })
}

// gramOfRows sums rᵀ·r over n rows of width cols, which row gives (into
// buf, or a row it already holds), in parallel: the upper triangle per
// worker, the parts added, then mirrored.
func gramOfRows(n, cols int, row func(i int, buf []float64) []float64) *dense {
	parts := make([]*dense, runtime.GOMAXPROCS(0))
	used := parallelRows(n, func(w, lo, hi int) {
		g := newDense(cols, cols)
		parts[w] = g
		buf := make([]float64, cols)
		for i := lo; i < hi; i++ {
			r := row(i, buf)
			for s, x := range r {
				if x == 0 {
					continue
				}
				gs := g.row(s)
				for t := s; t < len(r); t++ {
					gs[t] += x * r[t]
				}
			}
		}
	})
	g := parts[0]
	for _, p := range parts[1:used] {
		for i, x := range p.a {
			g.a[i] += x
		}
	}
	for s := range g.rows {
		for t := 0; t < s; t++ {
			g.a[s*g.cols+t] = g.a[t*g.cols+s]
		}
	}
	return g
}

// times returns d·w.
func (d *dense) times(w *dense) *dense {
	out := newDense(d.rows, w.cols)
	parallelRows(d.rows, func(_, lo, hi int) {
		for i := lo; i < hi; i++ {
			oi := out.row(i)
			for s, x := range d.row(i) {
				if x == 0 {
					continue
				}
				for t, wv := range w.row(s) {
					oi[t] += x * wv
				}
			}
		}
	})
	return out
}

// orth returns an orthonormal basis of d's column space by Cholesky QR,
// twice (one pass loses orthogonality when d is ill-conditioned); when d's
// columns are dependent, as in a tiny corpus, by its Gram matrix's
// eigenvectors instead.
func (d *dense) orth() *dense {
	for range 2 {
		rinv, ok := choleskyInverse(d.gram())
		if !ok {
			return d.orthEig()
		}
		d = d.times(rinv)
	}
	return d
}

// choleskyInverse returns R⁻¹ for the upper triangular R with RᵀR = g.
func choleskyInverse(g *dense) (*dense, bool) {
	n := g.rows
	r := newDense(n, n)
	for j := range n {
		s := g.a[j*n+j]
		for k := range j {
			s -= r.a[k*n+j] * r.a[k*n+j]
		}
		if s <= 1e-12*max(g.a[j*n+j], 1e-300) {
			return nil, false
		}
		r.a[j*n+j] = math.Sqrt(s)
		for i := j + 1; i < n; i++ {
			s := g.a[j*n+i]
			for k := range j {
				s -= r.a[k*n+j] * r.a[k*n+i]
			}
			r.a[j*n+i] = s / r.a[j*n+j]
		}
	}
	inv := newDense(n, n) // back substitution, column by column
	for c := range n {
		for i := c; i >= 0; i-- {
			s := 0.0
			if i == c {
				s = 1
			}
			for k := i + 1; k <= c; k++ {
				s -= r.a[i*n+k] * inv.a[k*n+c]
			}
			inv.a[i*n+c] = s / r.a[i*n+i]
		}
	}
	return inv, true
}

// orthEig is orth for rank-deficient d: with dᵀd = WΛWᵀ, d·W·Λ^(-1/2)
// over the eigenvalues that are not negligible.
func (d *dense) orthEig() *dense {
	for range 2 {
		vals, vecs := symEig(d.gram())
		keep := 0
		for keep < len(vals) && vals[keep] > 1e-10*max(vals[0], 1e-300) {
			keep++
		}
		w := newDense(vecs.rows, keep)
		for s := range vecs.rows {
			for t := range keep {
				w.a[s*keep+t] = vecs.a[s*vecs.cols+t] / math.Sqrt(vals[t])
			}
		}
		d = d.times(w)
	}
	return d
}

// symEig diagonalizes a symmetric matrix by cyclic Jacobi rotations and
// returns its eigenvalues in descending order with the eigenvectors as the
// columns of the second result.
func symEig(g *dense) ([]float64, *dense) {
	n := g.rows
	a := append([]float64(nil), g.a...)
	v := newDense(n, n)
	for i := range n {
		v.a[i*n+i] = 1
	}
	for sweep := 0; sweep < 60; sweep++ {
		var off, diag float64
		for p := range n {
			diag += a[p*n+p] * a[p*n+p]
			for q := p + 1; q < n; q++ {
				off += a[p*n+q] * a[p*n+q]
			}
		}
		if off <= 1e-22*diag || off == 0 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-300 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n { // columns p and q
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p], a[k*n+q] = c*akp-s*akq, s*akp+c*akq
				}
				for k := range n { // rows p and q
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k], a[q*n+k] = c*apk-s*aqk, s*apk+c*aqk
				}
				for k := range n {
					vkp, vkq := v.a[k*n+p], v.a[k*n+q]
					v.a[k*n+p], v.a[k*n+q] = c*vkp-s*vkq, s*vkp+c*vkq
				}
			}
		}
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool { return a[order[i]*n+order[i]] > a[order[j]*n+order[j]] })
	vals := make([]float64, n)
	vecs := newDense(n, n)
	for t, o := range order {
		vals[t] = a[o*n+o]
		for k := range n {
			vecs.a[k*n+t] = v.a[k*n+o]
		}
	}
	return vals, vecs
}

// randomizedSVD returns the rows of m in the space of its k leading
// singular directions, each scaled by the square root of its singular value
// (U·Σ^½, rows × r with r ≤ k when m's rank is smaller). The range finder
// works on mᵀ, whose row count (the contexts) is small, so every
// orthonormalization is cheap; power iterations keep the spectrum's tail
// from blurring the leading directions. With mᵀ ≈ Q·B and B·Bᵀ = (mQ)ᵀ(mQ)
// = Ŵ·Σ²·Ŵᵀ, U·Σ^½ = (mQ)·Ŵ·Σ^(-½). Nothing with a row per word is held:
// mQ is computed a row at a time whenever it is needed.
func randomizedSVD(m *csr, k int, seed uint64) product {
	l := min(k+12, m.rows, m.cols)
	if l <= 0 {
		return product{m, newDense(m.cols, 0), newDense(0, 0)}
	}
	q := m.mulT(nil, l, seed).orth()
	for range 2 {
		q = m.normalTimes(q).orth()
	}
	vals, w := symEig(m.projectedGram(q))
	r := 0
	for r < min(k, len(vals)) && vals[r] > 1e-10*max(vals[0], 1e-300) {
		r++
	}
	wk := newDense(w.rows, r)
	for t := range r {
		for s := range w.rows {
			wk.a[s*r+t] = w.a[s*w.cols+t] / math.Sqrt(math.Sqrt(vals[t]))
		}
	}
	return product{m, q, wk}
}

// rowTimes writes row i of m·q into y.
func (m *csr) rowTimes(i int, q *dense, y []float64) {
	clear(y)
	for k := m.start[i]; k < m.start[i+1]; k++ {
		v := float64(m.val[k])
		for t, x := range q.row(int(m.col[k])) {
			y[t] += v * x
		}
	}
}

// normalTimes returns mᵀ·(m·q), a row of m·q at a time.
func (m *csr) normalTimes(q *dense) *dense {
	return m.transposeTimesRows(q.cols, func(i int, y []float64) []float64 {
		m.rowTimes(i, q, y)
		return y
	})
}

// projectedGram returns (m·q)ᵀ(m·q), a row of m·q at a time.
func (m *csr) projectedGram(q *dense) *dense {
	return gramOfRows(m.rows, q.cols, func(i int, y []float64) []float64 {
		m.rowTimes(i, q, y)
		return y
	})
}

// product is m·q·w, left unmultiplied: its rows are computed one at a time.
type product struct {
	m    *csr
	q, w *dense
}

func (p product) rows() int { return p.m.rows }
func (p product) cols() int { return p.w.cols }

// row writes row i of m·q·w into out.
func (p product) row(i int, out []float64) {
	y := make([]float64, p.q.cols)
	p.m.rowTimes(i, p.q, y)
	clear(out)
	for s, x := range y {
		for t, wv := range p.w.row(s) {
			out[t] += x * wv
		}
	}
}
