// Users' notification preferences on the wire.
import type { Preferences, TelegramLink } from './preferences.schemas.ts';
import type { ShownPreferences } from './preferences.service.ts';
import type { LinkOffer } from './telegram-link.service.ts';

export function preferencesWire(shown: ShownPreferences): Preferences {
  return {
    events: shown.events,
    channels: shown.channels.map((channel) => {
      if (channel.type === 'email') return { type: 'email' };
      if (channel.type === 'telegram') return { type: 'telegram', chat_id: channel.chatId, linked: channel.linked };
      return { type: 'webhook', url: channel.url, format: channel.format };
    }),
  };
}

export function telegramLinkWire(offer: LinkOffer): TelegramLink {
  return { code: offer.code, url: offer.url, expires_at: offer.expiresAt.toISOString() };
}
