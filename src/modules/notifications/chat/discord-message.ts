// A neutral chat message as a Discord webhook payload: a short `content` line and one embed
// (title, description, colour by level, fields, link, timestamp), cut to Discord's limits: content
// 2000, title 256, description 4096, 25 fields of 256/1024, footer 2048, 6000 for the whole embed.
import type { ChatMessage } from '../messages.ts';
import { LEVEL_EMOJI, limitFields, truncate, webUrl, type ChatLevel } from './chat-text.ts';

interface DiscordEmbed {
  title: string;
  description?: string;
  color: number;
  url?: string;
  timestamp: string;
  footer: { text: string };
  fields: { name: string; value: string; inline: boolean }[];
}

interface DiscordPayload {
  content: string;
  embeds: [DiscordEmbed];
  /** Notifications must never ping anyone, whatever text they carry. */
  allowed_mentions: { parse: [] };
}

export const DISCORD_LIMITS = {
  content: 2000,
  title: 256,
  description: 4096,
  fields: 25,
  fieldName: 256,
  fieldValue: 1024,
  footer: 2048,
  embed: 6000,
};

const LEVEL_COLOR: Record<ChatLevel, number> = {
  info: 0x3498db,
  success: 0x2ecc71,
  warning: 0xf1c40f,
  error: 0xe74c3c,
};

/** Discord refuses empty field names and values; a zero-width space is its accepted blank. */
const nonEmpty = (text: string) => (text.trim() ? text : '\u200b');

export function embedLength(embed: DiscordEmbed): number {
  return (
    embed.title.length +
    (embed.description?.length ?? 0) +
    embed.footer.text.length +
    embed.fields.reduce((sum, f) => sum + f.name.length + f.value.length, 0)
  );
}

export function toDiscord(message: ChatMessage, at: Date): DiscordPayload {
  const level = message.level ?? 'info';
  const title = truncate(nonEmpty(message.title.trim() || message.source), DISCORD_LIMITS.title);
  const embed: DiscordEmbed = {
    title,
    color: LEVEL_COLOR[level],
    timestamp: at.toISOString(),
    footer: { text: truncate(nonEmpty(message.source), DISCORD_LIMITS.footer) },
    fields: [],
  };
  const url = webUrl(message.url, 2048);
  if (url) embed.url = url;
  // The whole embed shares 6000 characters: the text comes first, fields take what is left.
  if (message.text.trim()) {
    embed.description = truncate(
      message.text,
      Math.min(DISCORD_LIMITS.description, DISCORD_LIMITS.embed - embedLength(embed)),
    );
  }
  let used = embedLength(embed);
  for (const field of limitFields(message.fields ?? [], DISCORD_LIMITS.fields)) {
    const name = truncate(nonEmpty(field.name), DISCORD_LIMITS.fieldName);
    const value = truncate(nonEmpty(field.value), DISCORD_LIMITS.fieldValue);
    if (used + name.length + value.length > DISCORD_LIMITS.embed) break;
    used += name.length + value.length;
    embed.fields.push({ name, value, inline: value.length <= 40 });
  }

  return {
    content: truncate(`${LEVEL_EMOJI[level]} ${title}`, DISCORD_LIMITS.content),
    embeds: [embed],
    allowed_mentions: { parse: [] },
  };
}
