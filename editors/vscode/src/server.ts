import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import {
  CloseAction, CloseHandlerResult, ErrorAction, ErrorHandler, ErrorHandlerResult, LanguageClient, LanguageClientOptions,
  Message, ServerOptions, StaticFeature, WorkDoneProgress, WorkDoneProgressCreateRequest,
} from 'vscode-languageclient/node';
import { ranged, setting } from './settings';

/** The languages kast serves, as VS Code names them. */
export const languages = ['kotlin', 'go', 'python', 'typescript', 'typescriptreact', 'javascript', 'javascriptreact', 'java', 'rust', 'ruby'];

/**
 * Finds kast: the kast.server.path setting, then `kast` on PATH, then the
 * binary `make vsix` bundled for this platform (bin/<platform>-<arch>/kast).
 */
export function findServer(extensionPath: string, configured: string, env = process.env): string | undefined {
  if (configured.trim() !== '') {
    return configured.trim();
  }
  const exe = process.platform === 'win32' ? 'kast.exe' : 'kast';
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir && isExecutable(path.join(dir, exe))) {
      return path.join(dir, exe);
    }
  }
  const bundled = path.join(extensionPath, 'bin', `${process.platform}-${process.arch}`, exe);
  return isExecutable(bundled) ? bundled : undefined;
}

function isExecutable(file: string): boolean {
  try {
    fs.accessSync(file, fs.constants.X_OK);
    return fs.statSync(file).isFile();
  } catch {
    return false;
  }
}

/**
 * The environment kast runs with. With a key in SecretStorage, the Kimi
 * settings pick kast's provider: moonshot at kimi.baseUrl with kimi.model,
 * the key in MOONSHOT_API_KEY. The key goes only into the child's
 * environment: never into a setting, an argument or a log line.
 */
export function serverEnv(apiKey: string | undefined, base = process.env): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (apiKey) {
    env.KAST_PROVIDER = 'moonshot';
    env.MOONSHOT_API_KEY = apiKey;
    env.KAST_BASE_URL = setting<string>('baseUrl', 'https://api.moonshot.cn/v1');
    env.KAST_MODEL = setting<string>('model', 'moonshot-v1-8k');
  }
  return env;
}

/**
 * Restarts a crashed kast up to kast.server.maxRestarts times in three
 * minutes, then stops and says how to start it again.
 */
export class RestartPolicy implements ErrorHandler {
  private crashes: number[] = [];
  constructor(private readonly log: vscode.OutputChannel, private readonly now = () => Date.now()) {}

  error(_error: Error, _message: Message | undefined, count: number | undefined): ErrorHandlerResult {
    return { action: (count ?? 0) <= 3 ? ErrorAction.Continue : ErrorAction.Shutdown, handled: false };
  }

  closed(): CloseHandlerResult {
    const limit = ranged('server.maxRestarts', 5, 0, 20);
    const t = this.now();
    this.crashes = this.crashes.filter((c) => t - c < 3 * 60_000);
    this.crashes.push(t);
    if (this.crashes.length > limit) {
      const message = `kast stopped ${this.crashes.length} times in three minutes and will not be restarted. ` +
        'See the Kast output channel, then run "Kast: Restart Server".';
      this.log.appendLine(message);
      void vscode.window.showErrorMessage(message);
      return { action: CloseAction.DoNotRestart, handled: true };
    }
    this.log.appendLine(`kast stopped unexpectedly; restarting (${this.crashes.length} of ${limit}).`);
    return { action: CloseAction.Restart, handled: true };
  }
}

/** What the status bar shows of kast's indexing. */
export class StatusBar implements vscode.Disposable {
  readonly item: vscode.StatusBarItem;
  private active = new Map<string | number, string>();
  text = '';

  constructor() {
    this.item = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 10);
    // kast.status itself is kast's executeCommand (the client registers it); this shows its answer.
    this.item.command = 'kast.showStatus';
    this.show('$(sync~spin) kast: starting', 'kast is starting');
    this.item.show();
  }

  show(text: string, tooltip: string): void {
    this.text = text;
    this.item.text = text;
    this.item.tooltip = tooltip;
  }

  progress(token: string | number, value: { kind: string; title?: string; message?: string; percentage?: number }): void {
    if (value.kind === 'end') {
      this.active.delete(token);
      return;
    }
    const title = value.kind === 'begin' ? value.title ?? 'kast' : this.active.get(token) ?? 'kast';
    this.active.set(token, title);
    const pct = value.percentage !== undefined ? ` ${value.percentage}%` : '';
    this.show(`$(sync~spin) ${title}${pct}`, value.message ?? title);
  }

  get busy(): boolean {
    return this.active.size > 0;
  }

  ready(roots: Array<{ path: string; files: number; references: string }>): void {
    const files = roots.reduce((n, r) => n + r.files, 0);
    const tip = roots.map((r) => `${r.path}: ${r.files} files, references ${r.references}`).join('\n') || 'no workspace root';
    this.show(`$(check) kast: READY (${files} files)`, `${tip}\nClick for kast.status`);
  }

  dispose(): void {
    this.item.dispose();
  }
}

/**
 * Sends kast's $/progress to the status bar. It replaces the client's own
 * window/workDoneProgress/create handler (registered after it), so indexing
 * shows in the status bar instead of a notification.
 */
export class ProgressToStatus implements StaticFeature {
  constructor(private readonly client: LanguageClient, private readonly status: StatusBar, private readonly onIdle: () => void) {}
  getState() {
    return { kind: 'static' as const };
  }
  fillClientCapabilities(caps: { window?: { workDoneProgress?: boolean } }): void {
    caps.window = { ...caps.window, workDoneProgress: true };
  }
  initialize(): void {
    this.client.onRequest(WorkDoneProgressCreateRequest.type, ({ token }) => {
      const sub = this.client.onProgress(WorkDoneProgress.type, token, (value) => {
        this.status.progress(token, value);
        if (value.kind === 'end') {
          sub.dispose();
          if (!this.status.busy) {
            this.onIdle();
          }
        }
      });
    });
  }
  clear(): void {}
}

export interface ServerSetup {
  command: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  log: vscode.LogOutputChannel;
}

export function createClient(s: ServerSetup, errorHandler: ErrorHandler): LanguageClient {
  // transport left unset: stdio with exactly these args (TransportKind.stdio would add a second --stdio).
  const run = { command: s.command, args: s.args, options: { env: s.env } };
  const serverOptions: ServerOptions = { run, debug: run };
  const clientOptions: LanguageClientOptions = {
    documentSelector: languages.map((language) => ({ scheme: 'file', language })),
    outputChannel: s.log,
    errorHandler,
    // kast.trace.server is read by the client with id "kast".
  };
  return new LanguageClient('kast', 'Kast', serverOptions, clientOptions);
}
