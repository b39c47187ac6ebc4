// The chat view's HTML. The extension (src/chatView.ts) imports this, so it
// uses no DOM or Node types: a string in, a string out.

export interface ChatHtmlOptions {
  /** webview.cspSource: the origin the webview serves local resources from. */
  cspSource: string;
  /** A fresh random value per page load; only the script carrying it runs. */
  nonce: string;
  /** The webview URI of dist/chat.js. */
  scriptUri: string;
  /** The webview URI of chat.css. */
  styleUri: string;
}

const escapeAttr = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** chatHtml returns the page with a strict CSP: no inline code, no eval, only our files. */
export function chatHtml(o: ChatHtmlOptions): string {
  const csp = [
    "default-src 'none'",
    `img-src ${o.cspSource} data:`,
    `style-src ${o.cspSource}`,
    `script-src 'nonce-${o.nonce}'`,
  ].join('; ');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${escapeAttr(csp)};">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${escapeAttr(o.styleUri)}">
<title>Kast Chat</title>
</head>
<body>
<div id="app"></div>
<script nonce="${escapeAttr(o.nonce)}" src="${escapeAttr(o.scriptUri)}"></script>
</body>
</html>
`;
}
