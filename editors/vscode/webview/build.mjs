// Bundles the chat page for the webview (dist/chat.js, one IIFE: the CSP
// allows only the nonce'd script, so nothing may be loaded or evaluated at
// run time) and compiles html.ts and diff.ts for Node: the browser test
// serves the same HTML the extension does, and the diff has its own test.
import { build } from 'esbuild';

await build({
  entryPoints: ['src/main.ts'],
  bundle: true,
  format: 'iife',
  platform: 'browser',
  target: 'es2022',
  outfile: 'dist/chat.js',
  minify: false,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});

for (const name of ['html', 'diff']) {
  await build({
    entryPoints: [`src/${name}.ts`],
    bundle: false,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outfile: `dist/${name}.mjs`,
    logLevel: 'warning',
  });
}
