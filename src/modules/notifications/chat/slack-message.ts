// A neutral chat message as a Slack incoming-webhook payload: `text` as the notification fallback,
// `blocks` for the layout (header, section, fields, a link button, context), within Block Kit limits.
import type { ChatMessage } from '../messages.ts';
import { LEVEL_EMOJI, limitFields, truncate, webUrl } from './chat-text.ts';

interface SlackPayload {
  text: string;
  blocks: Record<string, unknown>[];
}

/** Block Kit limits: header 150, section text 3000, 10 fields per section of 2000 each. */
const LIMITS = { header: 150, section: 3000, field: 2000, fieldsPerSection: 10, fields: 40, url: 3000, fallback: 3000 };

/** Slack's mrkdwn reserves these three characters; user text must not open links or mentions. */
export function escapeMrkdwn(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

export function toSlack(message: ChatMessage): SlackPayload {
  const level = message.level ?? 'info';
  const emoji = LEVEL_EMOJI[level];
  const title = message.title.trim() || message.source;
  const blocks: Record<string, unknown>[] = [
    { type: 'header', text: { type: 'plain_text', text: truncate(`${emoji} ${title}`, LIMITS.header), emoji: true } },
  ];
  if (message.text.trim()) {
    blocks.push({
      type: 'section',
      text: { type: 'mrkdwn', text: truncate(escapeMrkdwn(message.text), LIMITS.section) },
    });
  }
  const fields = limitFields(message.fields ?? [], LIMITS.fields);
  for (let start = 0; start < fields.length; start += LIMITS.fieldsPerSection) {
    blocks.push({
      type: 'section',
      fields: fields.slice(start, start + LIMITS.fieldsPerSection).map((field) => ({
        type: 'mrkdwn',
        text: truncate(`*${escapeMrkdwn(field.name)}*\n${escapeMrkdwn(field.value)}`, LIMITS.field),
      })),
    });
  }
  const url = webUrl(message.url, LIMITS.url);
  if (url) {
    blocks.push({ type: 'actions', elements: [{ type: 'button', text: { type: 'plain_text', text: 'Open' }, url }] });
  }
  blocks.push({
    type: 'context',
    elements: [{ type: 'mrkdwn', text: `*${escapeMrkdwn(message.source)}* · ${level}` }],
  });

  const fallback = message.text.trim() ? `${title}: ${message.text}` : title;
  return { text: truncate(`${emoji} ${escapeMrkdwn(fallback)}`, LIMITS.fallback), blocks };
}
