import * as vscode from 'vscode';

// The Kimi IDE settings live under kimi.* (the spec's names) and are mirrored
// under kast.*; a kast.* value the user set wins, so either namespace works.
export function setting<T>(key: string, fallback: T): T {
  const kast = vscode.workspace.getConfiguration('kast');
  const seen = kast.inspect<T>(key);
  if (seen && (seen.globalValue !== undefined || seen.workspaceValue !== undefined || seen.workspaceFolderValue !== undefined)) {
    return kast.get<T>(key, fallback);
  }
  return vscode.workspace.getConfiguration('kimi').get<T>(key, fallback);
}

/** Clamps a numeric setting to the range package.json declares for it. */
export function ranged(key: string, fallback: number, min: number, max: number): number {
  const v = Number(setting<number>(key, fallback));
  return Number.isFinite(v) ? Math.min(max, Math.max(min, v)) : fallback;
}

export const secretKey = 'kast.apiKey';

/**
 * Moves an API key found in settings (kimi.apiKey or kast.apiKey, any scope)
 * into SecretStorage and clears it from settings, so it never stays in a
 * settings.json. Returns whether a key was moved.
 */
export async function migrateApiKey(secrets: vscode.SecretStorage): Promise<boolean> {
  let moved = false;
  for (const section of ['kimi', 'kast']) {
    const cfg = vscode.workspace.getConfiguration(section);
    const seen = cfg.inspect<string>('apiKey');
    const scopes: Array<[string | undefined, vscode.ConfigurationTarget]> = [
      [seen?.workspaceFolderValue, vscode.ConfigurationTarget.WorkspaceFolder],
      [seen?.workspaceValue, vscode.ConfigurationTarget.Workspace],
      [seen?.globalValue, vscode.ConfigurationTarget.Global],
    ];
    for (const [value, target] of scopes) {
      if (typeof value !== 'string' || value.trim() === '') {
        continue;
      }
      if (!moved) {
        await secrets.store(secretKey, value.trim());
        moved = true;
      }
      await cfg.update('apiKey', undefined, target);
    }
  }
  return moved;
}
