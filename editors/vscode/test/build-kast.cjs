// Builds kast from this checkout once per `npm test` into out/test-bin/kast,
// which the tests start; with KAST_CMD set (the Go test that runs npm test
// passes the binary it built) nothing is built.
const fs = require('node:fs');
const path = require('node:path');
const { execFileSync } = require('node:child_process');

if (!process.env.KAST_CMD) {
  const dir = path.join(__dirname, '..', 'out', 'test-bin');
  fs.mkdirSync(dir, { recursive: true });
  execFileSync('go', ['build', '-o', path.join(dir, 'kast'), './cmd/kast'], { cwd: path.resolve(__dirname, '..', '..', '..'), stdio: 'inherit' });
}
