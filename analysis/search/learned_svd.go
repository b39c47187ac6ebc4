package search

// A small randomized SVD (Halko, Martinsson and Tropp 2011) over a sparse
// matrix, written here rather than taken from gonum: it needs only sparse
// products, a Gram matrix and a symmetric eigensolver for matrices of a few
// hundred rows, and keeping it in the package leaves go.mod alone.

import (
	"math"
	"math/rand/v2"
	"sort"
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

// mul returns m·x.
func (m *csr) mul(x *dense) *dense {
	y := newDense(m.rows, x.cols)
	for i := range m.rows {
		yi := y.row(i)
		for k := m.start[i]; k < m.start[i+1]; k++ {
			v := float64(m.val[k])
			for t, xv := range x.row(int(m.col[k])) {
				yi[t] += v * xv
			}
		}
	}
	return y
}

// mulT returns mᵀ·y.
func (m *csr) mulT(y *dense) *dense {
	z := newDense(m.cols, y.cols)
	for i := range m.rows {
		yi := y.row(i)
		for k := m.start[i]; k < m.start[i+1]; k++ {
			v := float64(m.val[k])
			zj := z.row(int(m.col[k]))
			for t, yv := range yi {
				zj[t] += v * yv
			}
		}
	}
	return z
}

// gram returns aᵀ·a.
func (d *dense) gram() *dense {
	g := newDense(d.cols, d.cols)
	for i := range d.rows {
		r := d.row(i)
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
	for s := range g.rows {
		for t := 0; t < s; t++ {
			g.a[s*g.cols+t] = g.a[t*g.cols+s]
		}
	}
	return g
}

// times returns d·w for a small square or tall w.
func (d *dense) times(w *dense) *dense {
	out := newDense(d.rows, w.cols)
	for i := range d.rows {
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
	return out
}

// orth returns an orthonormal basis of d's column space: with dᵀd = WΛWᵀ,
// d·W·Λ^(-1/2) over the eigenvalues that are not negligible. Run twice, as
// one pass loses orthogonality when d is ill-conditioned.
func (d *dense) orth() *dense {
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

// randomizedSVD returns the left singular vectors of m's k largest singular
// values (as a rows × r matrix, r ≤ k when m's rank is smaller) and those
// singular values, using oversampling and power iterations so the
// spectrum's tail does not blur the leading directions.
func randomizedSVD(m *csr, k int, seed uint64) (*dense, []float64) {
	l := min(k+12, m.rows, m.cols)
	if l <= 0 {
		return newDense(m.rows, 0), nil
	}
	rng := rand.New(rand.NewPCG(seed, 0x6b617374))
	omega := newDense(m.cols, l)
	for i := range omega.a {
		omega.a[i] = rng.NormFloat64()
	}
	q := m.mul(omega).orth()
	for range 3 {
		q = m.mul(m.mulT(q).orth()).orth()
	}
	bt := m.mulT(q) // (qᵀm)ᵀ
	vals, w := symEig(bt.gram())
	r := 0
	for r < min(k, len(vals)) && vals[r] > 1e-10*max(vals[0], 1e-300) {
		r++
	}
	wk := newDense(w.rows, r)
	sv := make([]float64, r)
	for t := range r {
		sv[t] = math.Sqrt(vals[t])
		for s := range w.rows {
			wk.a[s*r+t] = w.a[s*w.cols+t]
		}
	}
	return q.times(wk), sv
}
