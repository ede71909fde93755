// Users' notification preferences on the wire.
import type { Preferences } from './preferences.schemas.ts';
import type { ShownPreferences } from './preferences.service.ts';

export function preferencesWire(shown: ShownPreferences): Preferences {
  return {
    events: shown.events,
    channels: shown.channels.map((channel) => {
      if (channel.type === 'email') return { type: 'email' };
      if (channel.type === 'telegram') return { type: 'telegram', chat_id: channel.chatId };
      return { type: 'webhook', url: channel.url, format: channel.format };
    }),
  };
}
