// A line diff (Myers' O((N+M)D) algorithm) for proposed file edits, and
// its grouping into hunks with a few lines of context, as a unified diff
// shows them.

export type LineOp = { op: 'same' | 'del' | 'add'; text: string; oldNo?: number; newNo?: number };

export type DiffRow = LineOp | { op: 'skip'; count: number };

/** Past this many differing lines the diff shows a full replacement rather than search further. */
const maxEdits = 1000;

export function splitLines(text: string): string[] {
  if (text === '') return [];
  const lines = text.split(/\r?\n/);
  if (lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** diffLines returns the edit script turning before into after, line by line. */
export function diffLines(before: string, after: string): LineOp[] {
  const a = splitLines(before);
  const b = splitLines(after);
  // Common prefix and suffix first: most edits touch a small middle.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: LineOp[] = [];
  for (let i = 0; i < start; i++) ops.push({ op: 'same', text: a[i], oldNo: i + 1, newNo: i + 1 });
  const middle = myers(a.slice(start, endA), b.slice(start, endB));
  let oi = start;
  let ni = start;
  for (const op of middle) {
    if (op === 'same') ops.push({ op, text: a[oi], oldNo: ++oi, newNo: ++ni });
    else if (op === 'del') ops.push({ op, text: a[oi], oldNo: ++oi });
    else ops.push({ op, text: b[ni], newNo: ++ni });
  }
  for (let i = endA, j = endB; i < a.length; i++, j++) ops.push({ op: 'same', text: a[i], oldNo: i + 1, newNo: j + 1 });
  return ops;
}

/** myers returns the shortest edit script between a and b as operations. */
function myers(a: string[], b: string[]): Array<'same' | 'del' | 'add'> {
  const n = a.length;
  const m = b.length;
  if (n === 0) return Array(m).fill('add');
  if (m === 0) return Array(n).fill('del');
  const max = Math.min(n + m, maxEdits);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  for (let d = 0; d <= max; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      let x: number;
      if (k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1])) x = v[offset + k + 1];
      else x = v[offset + k - 1] + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) return backtrack(trace, offset, n, m, d);
    }
  }
  // Too different to be worth the search: replace the whole middle.
  return [...Array(n).fill('del'), ...Array(m).fill('add')];
}

function backtrack(trace: Int32Array[], offset: number, n: number, m: number, dEnd: number) {
  const out: Array<'same' | 'del' | 'add'> = [];
  let x = n;
  let y = m;
  for (let d = dEnd; d > 0; d--) {
    const v = trace[d];
    const k = x - y;
    const down = k === -d || (k !== d && v[offset + k - 1] < v[offset + k + 1]);
    const prevK = down ? k + 1 : k - 1;
    const prevX = v[offset + prevK];
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push('same');
      x--;
      y--;
    }
    out.push(down ? 'add' : 'del');
    if (down) y--;
    else x--;
  }
  while (x > 0 && y > 0) {
    out.push('same');
    x--;
    y--;
  }
  return out.reverse();
}

/** hunks keeps context lines around changes and folds the long unchanged runs. */
export function hunks(ops: LineOp[], context = 3): DiffRow[] {
  const keep = new Array<boolean>(ops.length).fill(false);
  ops.forEach((o, i) => {
    if (o.op === 'same') return;
    for (let j = Math.max(0, i - context); j <= Math.min(ops.length - 1, i + context); j++) keep[j] = true;
  });
  const rows: DiffRow[] = [];
  let skipped = 0;
  ops.forEach((o, i) => {
    if (keep[i]) {
      if (skipped > 0) rows.push({ op: 'skip', count: skipped });
      skipped = 0;
      rows.push(o);
    } else {
      skipped++;
    }
  });
  if (skipped > 0) rows.push({ op: 'skip', count: skipped });
  return rows;
}

export function stats(ops: LineOp[]): { added: number; removed: number } {
  let added = 0;
  let removed = 0;
  for (const o of ops) {
    if (o.op === 'add') added++;
    else if (o.op === 'del') removed++;
  }
  return { added, removed };
}
