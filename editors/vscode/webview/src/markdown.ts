// Model text → DOM. markdown-it runs with raw HTML off, so any tag the model
// writes is escaped text; what it does emit is then cleaned for the CSP (no
// style attributes, no remote images) and code blocks get Copy and Insert.

import MarkdownIt from 'markdown-it';

const md = new MarkdownIt({ html: false, linkify: true, breaks: false, typographer: false });

const safeLink = /^(https?:|mailto:|#)/i;

/** renderMarkdown returns the rendered text as an element's children. */
export function renderMarkdown(text: string): DocumentFragment {
  const template = document.createElement('template');
  template.innerHTML = md.render(text);
  const root = template.content;
  for (const el of Array.from(root.querySelectorAll('[style]'))) el.removeAttribute('style');
  for (const img of Array.from(root.querySelectorAll('img'))) {
    // Remote images are blocked by the CSP anyway; show where they point.
    const link = document.createElement('a');
    link.textContent = img.getAttribute('alt') || img.getAttribute('src') || 'image';
    const src = img.getAttribute('src') ?? '';
    if (safeLink.test(src)) link.href = src;
    img.replaceWith(link);
  }
  for (const a of Array.from(root.querySelectorAll('a'))) {
    const href = a.getAttribute('href') ?? '';
    if (href !== '' && !safeLink.test(href)) a.removeAttribute('href');
    a.title = href;
  }
  for (const pre of Array.from(root.querySelectorAll('pre'))) wrapCode(pre);
  return root;
}

/** wrapCode puts a code block in a frame with its language and the two buttons. */
function wrapCode(pre: HTMLPreElement): void {
  const code = pre.querySelector('code');
  const lang = /language-([\w+#.-]+)/.exec(code?.className ?? '')?.[1] ?? '';
  const frame = document.createElement('div');
  frame.className = 'code-block';
  const bar = document.createElement('div');
  bar.className = 'code-bar';
  const label = document.createElement('span');
  label.className = 'code-lang';
  label.textContent = lang;
  bar.append(label, codeButton('copy', 'Copy'), codeButton('insert', 'Insert'));
  pre.replaceWith(frame);
  frame.append(bar, pre);
}

function codeButton(action: string, label: string): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = 'code-action';
  b.dataset.action = action;
  b.textContent = label;
  b.title = action === 'copy' ? 'Copy to the clipboard' : 'Insert at the cursor in the active editor';
  return b;
}

/** codeOf returns the code a Copy or Insert button stands for. */
export function codeOf(button: Element): string {
  const code = button.closest('.code-block')?.querySelector('pre code, pre');
  return (code?.textContent ?? '').replace(/\n$/, '');
}
