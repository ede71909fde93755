// Users' notification preferences on the wire. A channel is one object whose fields depend on its
// type; the service checks that each has what its type needs, so that a 422 names the field.
import { Type, type Static } from 'typebox';
import { StringEnum } from '../../platform/http/schemas.ts';
import { NOTIFY_EVENTS, WEBHOOK_FORMATS } from './preferences.domain.ts';

export const CHANNEL_TYPES = ['email', 'telegram', 'webhook'] as const;
export const MAX_CHANNELS = 10;

const channelFields = {
  type: StringEnum(CHANNEL_TYPES, { description: '`email` (your account address), `telegram` or `webhook`.' }),
  chat_id: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 64,
      description:
        'telegram: the chat the bot writes to. A chat is added by opening the link of ' +
        '`POST /api/notifications/telegram/link` in it and pressing Start; sending back a chat id already ' +
        'listed keeps it, any other is refused (422).',
    }),
  ),
  linked: Type.Optional(
    Type.Boolean({
      description:
        'telegram, in answers: whether the chat was proven yours through the bot’s link. A chat not linked ' +
        '(entered by its id before linking existed, or unlinked when you blocked the bot) is told nothing until you ' +
        'open the link in it, and what it missed meanwhile is not sent later. Ignored when sent.',
    }),
  ),
  url: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'webhook: a Slack- or Discord-style incoming webhook URL, https only, on a public address. Shown back as its ' +
        'origin only (`https://hooks.slack.com/…`); sending that back unchanged keeps the stored URL. Several ' +
        'on one origin are shown alike and kept in the order shown; sending back fewer of them than are saved ' +
        'is refused (422): send the full URL of each one to keep.',
    }),
  ),
  format: Type.Optional(StringEnum(WEBHOOK_FORMATS, { description: 'webhook: `slack` (default) or `discord`.' })),
};

export const Channel = Type.Object(channelFields, { additionalProperties: false, title: 'NotificationChannel' });
export type Channel = Static<typeof Channel>;

const Events = Type.Array(StringEnum(NOTIFY_EVENTS, { description: 'An event you are told of.' }), {
  maxItems: NOTIFY_EVENTS.length,
  uniqueItems: true,
  description: `What you are told of: ${NOTIFY_EVENTS.join(', ')}.`,
});

export const PreferencesBody = Type.Object(
  {
    channels: Type.Array(Channel, { maxItems: MAX_CHANNELS, description: 'Where notifications go.' }),
    events: Events,
  },
  { additionalProperties: false },
);
export type PreferencesBody = Static<typeof PreferencesBody>;

export const Preferences = Type.Object(
  {
    channels: Type.Array(Channel, { description: 'Where notifications go.' }),
    events: Events,
  },
  { title: 'NotificationPreferences' },
);
export type Preferences = Static<typeof Preferences>;

export const TestSent = Type.Object(
  { queued: Type.Integer({ description: 'Channels a test notification was queued for (sent within seconds).' }) },
  { title: 'NotificationTestQueued' },
);
export type TestSent = Static<typeof TestSent>;

export const TelegramLink = Type.Object(
  {
    code: Type.String({ description: 'The one-time code the link carries; it works once, within expires_at.' }),
    url: Type.String({
      description: 'Open it in Telegram and press Start: the chat you do it in receives your notifications.',
    }),
    expires_at: Type.String({ format: 'date-time', description: 'When the code stops working (10 minutes).' }),
  },
  { title: 'TelegramLink' },
);
export type TelegramLink = Static<typeof TelegramLink>;
