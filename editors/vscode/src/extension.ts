import * as path from 'node:path';
import * as vscode from 'vscode';
import { LanguageClient, State } from 'vscode-languageclient/node';
import { ChatHtml, ChatViewProvider, loadChatHtml } from './chatView';
import { kimiCommands, registerAliased, selectionPrompts, SelectionActions } from './commands';
import { InlineCompletions } from './inlineCompletion';
import { InlineEdits } from './inlineEdit';
import { KaiakView } from './kaiakView';
import { createClient, findServer, languages, ProgressToStatus, RestartPolicy, serverEnv, StatusBar } from './server';
import { migrateApiKey, secretKey, setting } from './settings';
import { editorContext, MessageContext, Wire, WireEvent, WireEventName } from './wire';

/** What activate() returns: other extensions drive the chat through it. */
export interface KastApi {
  /** Sends a message to the agent; with context, the editor's (or the given) context goes along. */
  sendMessage(content: string, context?: MessageContext | boolean): Promise<void>;
  /** Every Kimi wire event. */
  onEvent: vscode.Event<WireEvent>;
  /** One wire event type, as WireClient.on in the spec. */
  on(name: WireEventName, handler: (params: any) => void): vscode.Disposable;
  interruptTurn(): Promise<boolean>;
  submitApproval(requestId: string, approved: boolean, reason?: string): Promise<void>;
  /** The running language client, if any. */
  readonly client: LanguageClient | undefined;
}

let state: Extension | undefined;

/** A request on the client; an undefined token must not be passed (it would become a positional parameter). */
function send<R>(client: LanguageClient, method: string, params?: unknown, token?: vscode.CancellationToken): Promise<R> {
  return token ? client.sendRequest<R>(method, params, token) : client.sendRequest<R>(method, params);
}

class Extension implements vscode.Disposable {
  readonly log = vscode.window.createOutputChannel('Kast', { log: true });
  readonly status = new StatusBar();
  client?: LanguageClient;
  command?: string;
  private readonly env: NodeJS.ProcessEnv = {};
  readonly wire: Wire;
  readonly chat: ChatViewProvider;
  readonly edits: InlineEdits;
  readonly completions: InlineCompletions;
  readonly kaiak: KaiakView;
  private readonly subs: vscode.Disposable[] = [];

  constructor(readonly context: vscode.ExtensionContext, loadHtml: () => ChatHtml) {
    const rpc = {
      sendRequest: <R>(method: string, params?: unknown, token?: vscode.CancellationToken): Promise<R> => {
        if (!this.client || !this.client.isRunning()) {
          return Promise.reject(new Error('kast is not running; run "Kast: Restart Server" or check the Kast output channel'));
        }
        return send<R>(this.client, method, params, token);
      },
      onNotification: (method: string, handler: (params: any) => void) => this.client?.onNotification(method, handler) ?? new vscode.Disposable(() => {}),
    };
    this.wire = new Wire(rpc);
    this.chat = new ChatViewProvider(context.extensionUri, this.wire, loadHtml, this.log);
    this.edits = new InlineEdits(this.wire, this.chat);
    this.completions = new InlineCompletions(() => (this.client?.isRunning() ? rpc : undefined));
    this.kaiak = new KaiakView(() => (this.client?.isRunning() ? rpc : undefined), () => this.command, this.log);
    this.subs.push(this.log, this.status, this.wire, this.chat, this.edits, this.kaiak);
  }

  /** Starts kast (unless kimi.enableLSP is off) with the stored API key in its environment. */
  async start(): Promise<void> {
    if (!setting<boolean>('enableLSP', true)) {
      this.status.show('$(circle-slash) kast: off', 'kimi.enableLSP is off');
      return;
    }
    const configured = vscode.workspace.getConfiguration('kast').get<string>('server.path', '');
    this.command = findServer(this.context.extensionUri.fsPath, configured ?? '');
    if (!this.command) {
      const msg = 'kast was not found: set kast.server.path, put kast on PATH, or install the .vsix built with `make vsix`.';
      this.status.show('$(error) kast: not found', msg);
      void vscode.window.showErrorMessage(msg);
      return;
    }
    await this.refreshEnv();
    const args = ['lsp', '--stdio', ...vscode.workspace.getConfiguration('kast').get<string[]>('server.extraArgs', [])];
    this.log.appendLine(`starting ${this.command} ${args.join(' ')}`);
    const client = createClient({ command: this.command, args, env: this.env, log: this.log }, new RestartPolicy(this.log));
    client.registerFeature(new ProgressToStatus(client, this.status, () => void this.showStatus(false)));
    this.client = client;
    const rpc = { sendRequest: <R>(m: string, p?: unknown, t?: vscode.CancellationToken) => send<R>(client, m, p, t),
      onNotification: (m: string, h: (p: any) => void) => client.onNotification(m, h) };
    this.wire.attach(rpc);
    this.kaiak.attach(rpc);
    this.subs.push(client.onDidChangeState((e) => {
      if (e.newState === State.Running) {
        void this.afterStart();
      } else if (e.newState === State.Stopped) {
        this.status.show('$(debug-disconnect) kast: stopped', 'kast is not running; click for its status');
      }
    }));
    try {
      await client.start();
    } catch (e) {
      const msg = `kast failed to start: ${e instanceof Error ? e.message : String(e)}`;
      this.log.appendLine(msg);
      this.status.show('$(error) kast: failed', msg);
      void vscode.window.showErrorMessage(msg);
    }
  }

  /** Puts the secret key (and the Kimi settings that go with it) in kast's environment. */
  async refreshEnv(): Promise<void> {
    const key = await this.context.secrets.get(secretKey);
    for (const k of Object.keys(this.env)) {
      delete this.env[k];
    }
    Object.assign(this.env, serverEnv(key));
  }

  private async afterStart(): Promise<void> {
    if (!this.status.busy) {
      await this.showStatus(false);
    }
    // Ghost text only with a provider: models/current fails when kast has none.
    // The client may be gone by now (stopped, or restarting after a crash).
    const client = this.client;
    if (!client?.isRunning()) {
      return;
    }
    this.completions.providerReady = await client.sendRequest('models/current', {}).then(() => true, () => false);
  }

  /** kast.status: the roots and their index, in the status bar, the log and (asked for) a message. */
  async showStatus(tell: boolean): Promise<unknown> {
    if (!this.client?.isRunning()) {
      if (tell) {
        void vscode.window.showWarningMessage('kast is not running; see the Kast output channel.');
      }
      return undefined;
    }
    const st = await this.client.sendRequest<{ roots: Array<{ path: string; files: number; references: string; index: string }> }>(
      'workspace/executeCommand', { command: 'kast.status', arguments: [] }).catch(() => undefined);
    if (!st) {
      return undefined;
    }
    this.status.ready(st.roots ?? []);
    if (tell) {
      this.log.appendLine(`kast.status: ${JSON.stringify(st, null, 2)}`);
      const summary = (st.roots ?? []).map((r) => `${path.basename(r.path)}: ${r.files} files, references ${r.references}`).join('; ');
      void vscode.window.showInformationMessage(`kast: ${summary || 'no workspace root'}`);
    }
    return st;
  }

  async restart(): Promise<void> {
    await this.refreshEnv();
    if (!this.client) {
      await this.start();
      return;
    }
    this.status.show('$(sync~spin) kast: restarting', 'kast is restarting');
    await this.client.restart();
  }

  register(): void {
    const ask = async (prompt: string) => vscode.window.showInputBox({ prompt });
    const sendFromCommand = async (text: string, context?: MessageContext) => {
      await this.chat.reveal();
      await this.chat.send(text, context, true);
    };
    const handlers: Record<string, (...a: any[]) => unknown> = {
      inlineEdit: (instruction?: string) => this.edits.start(typeof instruction === 'string' ? instruction : undefined),
      acceptEdit: () => this.edits.accept(),
      rejectEdit: () => this.edits.reject(),
      showDiff: () => this.edits.showDiff(),
      quickChat: async (text?: string) => {
        const t = typeof text === 'string' ? text : await ask('Ask Kimi');
        if (t) {
          await sendFromCommand(t);
        }
      },
      chatWithContext: async (text?: string) => {
        const t = typeof text === 'string' ? text : await ask('Ask Kimi about the current file');
        if (t) {
          await sendFromCommand(t, editorContext());
        }
      },
      configureApiKey: async (given?: string) => {
        const key = typeof given === 'string' ? given : await vscode.window.showInputBox({ prompt: 'Moonshot AI API key', password: true, ignoreFocusOut: true });
        if (!key?.trim()) {
          return;
        }
        await this.context.secrets.store(secretKey, key.trim());
        await this.restart();
        void vscode.window.showInformationMessage('API key stored in VS Code\'s secret storage; kast restarted with it.');
      },
      validateApiKey: async () => {
        try {
          const r = await this.wire.request<{ valid: boolean; provider?: string; model?: string; message: string }>('validateApiKey', {});
          (r.valid ? vscode.window.showInformationMessage : vscode.window.showErrorMessage)(`Kimi: ${r.message}`);
          return r;
        } catch (e) {
          void vscode.window.showErrorMessage(`Kimi: ${e instanceof Error ? e.message : String(e)}`);
          return { valid: false, message: String(e) };
        }
      },
      openSettings: () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:kast-dev.kast'),
    };
    for (const [id, p] of Object.entries(selectionPrompts)) {
      handlers[id] = async () => {
        const ctx = editorContext();
        if (!ctx.selected_text) {
          void vscode.window.showInformationMessage(`Select some code to ${p.title.toLowerCase()}.`);
          return;
        }
        await sendFromCommand(p.prompt, ctx);
      };
    }
    if (Object.keys(handlers).sort().join() !== [...kimiCommands].sort().join()) {
      throw new Error('the Kimi command table and its handlers differ'); // a programming error, caught by the tests
    }
    this.subs.push(
      ...registerAliased(handlers),
      vscode.commands.registerCommand('kast.restartServer', () => this.restart()),
      vscode.commands.registerCommand('kast.showStatus', () => this.showStatus(true)),
      vscode.commands.registerCommand('kast.showOutput', () => this.log.show()),
      vscode.commands.registerCommand('kast.openChat', () => this.chat.reveal()),
      vscode.commands.registerCommand('kast.kaiak.openAnalysis', async (file?: string) => {
        const f = typeof file === 'string' ? file : (await vscode.window.showOpenDialog({ filters: { 'Konveyor analysis': ['yaml', 'yml', 'json'] } }))?.[0]?.fsPath;
        const root = editorContext(false).workspace_root;
        if (f && root) {
          const n = await this.kaiak.open(f, root);
          void vscode.window.showInformationMessage(`Kaiak: ${n} incident(s) in ${this.kaiak.files.length} file(s).`);
        }
      }),
      vscode.commands.registerCommand('kast.kaiak.fix', (node?: any) => this.kaiak.fix(node)),
      vscode.commands.registerCommand('kast.kaiak.refresh', () => this.kaiak.reload()),
      vscode.window.registerWebviewViewProvider(ChatViewProvider.viewType, this.chat, { webviewOptions: { retainContextWhenHidden: false } }),
      vscode.window.registerTreeDataProvider('kast.kaiak', this.kaiak),
      vscode.languages.registerCodeActionsProvider(languages.map((language) => ({ language })).concat([{ scheme: 'file' } as any]),
        new SelectionActions(), { providedCodeActionKinds: SelectionActions.kinds }),
      vscode.languages.registerInlineCompletionItemProvider({ pattern: '**' }, this.completions),
      // A Konveyor analysis output opened in the editor fills the Kaiak view.
      vscode.workspace.onDidOpenTextDocument((doc) => {
        const root = editorContext(false).workspace_root;
        if (root && /\.(ya?ml|json)$/.test(doc.fileName) && /violations/.test(doc.getText().slice(0, 20000)) && /incidents/.test(doc.getText())) {
          void this.kaiak.open(doc.fileName, root).catch((e) => this.log.appendLine(`kaiak: ${e.message}`));
        }
      }),
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('kimi.baseUrl') || e.affectsConfiguration('kimi.model') || e.affectsConfiguration('kast.baseUrl') ||
          e.affectsConfiguration('kast.model') || e.affectsConfiguration('kast.server')) {
          void this.restart();
        }
        if (e.affectsConfiguration('kimi.apiKey') || e.affectsConfiguration('kast.apiKey')) {
          void migrateApiKey(this.context.secrets).then(async (moved) => {
            if (moved) {
              await this.restart();
            }
          });
        }
      }),
    );
  }

  /** Once: with no key stored and no provider in kast, say how to configure one. */
  async welcome(): Promise<void> {
    if (setting<boolean>('hasSeenWelcome', false) || (await this.context.secrets.get(secretKey)) || this.completions.providerReady) {
      return;
    }
    await vscode.workspace.getConfiguration('kimi').update('hasSeenWelcome', true, vscode.ConfigurationTarget.Global);
    const pick = await vscode.window.showInformationMessage('Kast: configure a Moonshot API key to use the chat, the Kimi commands and ghost text.',
      'Configure API Key');
    if (pick === 'Configure API Key') {
      await vscode.commands.executeCommand('kimi.configureApiKey');
    }
  }

  api(): KastApi {
    return {
      sendMessage: async (content, context) => {
        const ctx = context === true ? editorContext() : context === false ? undefined : context;
        await this.chat.send(content, ctx, true);
      },
      onEvent: this.wire.onEvent,
      on: (name, handler) => this.wire.onEvent((e) => e.name === name && handler(e.params)),
      interruptTurn: () => this.wire.interrupt(),
      submitApproval: async (id, approved, reason) => {
        await this.wire.submitApproval(id, approved, reason);
      },
      get client() {
        return state?.client;
      },
    };
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      await c.stop().catch(() => undefined);
    }
    this.subs.forEach((d) => d.dispose());
  }

  dispose(): void {
    void this.stop();
  }
}

export async function activate(context: vscode.ExtensionContext, loadHtml: () => ChatHtml = loadChatHtml): Promise<KastApi> {
  const ext = new Extension(context, loadHtml);
  state = ext;
  context.subscriptions.push(ext);
  // kimi.apiKey is read once and moved to SecretStorage, never left in settings.json.
  if (await migrateApiKey(context.secrets)) {
    ext.log.appendLine('Moved the API key from settings to VS Code\'s secret storage.');
  }
  ext.register();
  await ext.start();
  void ext.welcome();
  return ext.api();
}

export async function deactivate(): Promise<void> {
  const ext = state;
  state = undefined;
  await ext?.stop();
}
