// The page's line diff against a plain longest-common-subsequence count: on
// random inputs its script must rebuild both sides and be as short as any.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLines, hunks, splitLines } from '../dist/diff.mjs';

function lcs(a, b) {
  const row = new Array(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    let diag = 0;
    for (let j = 1; j <= b.length; j++) {
      const up = row[j];
      row[j] = a[i - 1] === b[j - 1] ? diag + 1 : Math.max(row[j], row[j - 1]);
      diag = up;
    }
  }
  return row[b.length];
}

// A small deterministic generator, so a failure can be replayed.
function rng(seed) {
  return () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
}

test('the diff rebuilds both sides with the fewest changed lines', () => {
  const rand = rng(7);
  for (let round = 0; round < 300; round++) {
    const lines = (n) => Array.from({ length: Math.floor(rand() * n) }, () => 'abcde'[Math.floor(rand() * 5)]);
    const a = lines(30);
    const b = rand() < 0.5 ? lines(30) : a.map((x) => (rand() < 0.2 ? 'z' : x)).filter(() => rand() < 0.9);
    const before = a.map((x) => x + '\n').join('');
    const after = b.map((x) => x + '\n').join('');
    const ops = diffLines(before, after);
    assert.deepEqual(ops.filter((o) => o.op !== 'add').map((o) => o.text), a);
    assert.deepEqual(ops.filter((o) => o.op !== 'del').map((o) => o.text), b);
    const changed = ops.filter((o) => o.op !== 'same').length;
    assert.equal(changed, a.length + b.length - 2 * lcs(a, b), `round ${round}: ${JSON.stringify({ a, b })}`);
    for (const o of ops) {
      if (o.op !== 'add') assert.equal(a[o.oldNo - 1], o.text);
      if (o.op !== 'del') assert.equal(b[o.newNo - 1], o.text);
    }
  }
});

test('hunks keep three lines of context and fold the rest', () => {
  const before = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n';
  const after = before.replace('line 10\n', 'line ten\n');
  const rows = hunks(diffLines(before, after));
  assert.deepEqual(rows.map((r) => (r.op === 'skip' ? `skip ${r.count}` : `${r.op} ${r.text}`)), [
    'skip 6', 'same line 7', 'same line 8', 'same line 9', 'del line 10', 'add line ten',
    'same line 11', 'same line 12', 'same line 13', 'skip 7',
  ]);
  assert.deepEqual(splitLines('a\r\nb'), ['a', 'b']);
  assert.deepEqual(splitLines(''), []);
});

test('a huge rewrite falls back to replacing the middle', () => {
  const a = Array.from({ length: 3000 }, (_, i) => `a${i}`).join('\n');
  const b = Array.from({ length: 3000 }, (_, i) => `b${i}`).join('\n');
  const ops = diffLines(a, b);
  assert.equal(ops.filter((o) => o.op === 'del').length, 3000);
  assert.equal(ops.filter((o) => o.op === 'add').length, 3000);
});
