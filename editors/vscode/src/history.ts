import type { WireEventName } from './wire';

/** A Kward transcript message (sessions/transcript). */
export interface TranscriptMessage {
  role: string;
  content?: Array<{ type: string; text?: string; thinking?: string; id?: string; name?: string; arguments?: unknown }>;
  toolCallId?: string;
  toolName?: string;
  isError?: boolean;
}

/**
 * Replays a stored conversation as the Kimi wire events a live turn would
 * have sent, so the page renders a resumed session the way it renders one
 * that streams.
 */
export function historyEvents(messages: TranscriptMessage[]): Array<{ name: WireEventName; params: any }> {
  const out: Array<{ name: WireEventName; params: any }> = [];
  let turn = 0;
  const end = () => {
    if (turn > 0) {
      out.push({ name: 'TurnEnd', params: { turn_id: `history-${turn}`, finish_reason: 'completed', error: null } });
    }
  };
  for (const m of messages) {
    const parts = m.content ?? [];
    if (m.role === 'user') {
      end();
      turn++;
      const text = parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('');
      // kast appends the editor context to the stored message; the page shows what the user typed.
      const typed = text.split('\n\n<editor_context>')[0];
      out.push({ name: 'TurnBegin', params: { turn_id: `history-${turn}`, user_input: typed, context: { files: [], selections: [] } } });
    } else if (m.role === 'assistant') {
      for (const p of parts) {
        if (p.type === 'thinking') {
          out.push({ name: 'ContentPart', params: { type: 'think', content: p.thinking ?? '' } });
        } else if (p.type === 'text') {
          out.push({ name: 'ContentPart', params: { type: 'text', text: p.text ?? '' } });
        } else if (p.type === 'toolCall') {
          out.push({ name: 'ToolCall', params: { id: p.id, name: p.name, arguments: p.arguments ?? {} } });
        }
      }
    } else if (m.role === 'toolResult') {
      const text = parts.filter((p) => p.type === 'text').map((p) => p.text ?? '').join('');
      out.push({ name: 'ToolResult', params: { tool_call_id: m.toolCallId, name: m.toolName, content: text, is_error: !!m.isError } });
    }
  }
  end();
  return out;
}
