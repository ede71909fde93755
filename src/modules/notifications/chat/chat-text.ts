// Text rules shared by the Slack and Discord renderers: truncation that never splits a character,
// a bounded field list, and which links a chat tool accepts.
import type { ChatMessage } from '../messages.ts';

export type ChatLevel = NonNullable<ChatMessage['level']>;
type ChatField = { name: string; value: string };

export const LEVEL_EMOJI: Record<ChatLevel, string> = {
  info: 'ℹ️',
  success: '✅',
  warning: '⚠️',
  error: '🚨',
};

/** At most `max` UTF-16 units (what the chat tools count, or more), ending with `…` when cut. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  let result = '';
  for (const character of text) {
    if (result.length + character.length > max - 1) break;
    result += character;
  }
  return `${result}…`;
}

/** At most `max` fields; when there are more, the last one says how many were left out. */
export function limitFields(fields: readonly ChatField[], max: number): ChatField[] {
  if (fields.length <= max) return [...fields];
  const kept = fields.slice(0, max - 1);
  return [...kept, { name: '…', value: `${fields.length - kept.length} more not shown` }];
}

/** Only absolute http(s) links: anything else makes Slack and Discord refuse the whole message. */
export function webUrl(url: string | undefined, maxLength: number): string | undefined {
  if (!url || url.length > maxLength) return undefined;
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? url : undefined;
  } catch {
    return undefined;
  }
}

/** The message as stored in the outbox, checked, since rows outlive the code that wrote them. */
export function parseChatMessage(payload: Record<string, unknown>): ChatMessage | undefined {
  const { source, title, text, level, url, fields } = payload;
  if (typeof source !== 'string' || typeof title !== 'string' || typeof text !== 'string') return undefined;
  if (level !== undefined && !(typeof level === 'string' && level in LEVEL_EMOJI)) return undefined;
  if (url !== undefined && url !== null && typeof url !== 'string') return undefined;
  if (
    fields !== undefined &&
    !(Array.isArray(fields) && fields.every((f) => f && typeof f.name === 'string' && typeof f.value === 'string'))
  ) {
    return undefined;
  }
  return {
    source,
    title,
    text,
    level: level as ChatLevel | undefined,
    url: (url as string | null | undefined) ?? undefined,
    fields: fields as ChatField[] | undefined,
  };
}
