// rotate-api-keys: re-seals every stored secret still under a retired encryption key with the current
// one, and tells the team in chat which provider keys are overdue or due for rotation soon.
import { Type, type Static } from 'typebox';
import { defineJob } from '../../platform/jobs.ts';
import type { ChatMessage } from '../notifications/index.ts';

const ROTATION_WINDOW_DAYS = 14;

interface ReencryptCounts {
  scanned: number;
  reencrypted: number;
  unreadable: number;
}

interface Reminder {
  id: string;
  provider: string;
  nextRotationDate: Date;
  /** Negative when overdue. */
  daysUntilRotation: number;
}

export interface RotateApiKeysDeps {
  providerKeys: {
    reencryptAll(): Promise<ReencryptCounts>;
    rotationReminders(now: Date, withinDays: number): Promise<Reminder[]>;
  };
  exchangeCredentials: { reencryptAll(): Promise<ReencryptCounts> };
  /** Users' sealed TOTP secrets (decision 140). */
  twoFactorSecrets: { reencryptAll(): Promise<ReencryptCounts> };
  /** Queues a chat message once per dedupe key; true when this call queued it. */
  notify(message: ChatMessage, now: Date, dedupeKey: string): Promise<boolean>;
}

const Counts = (what: string) =>
  Type.Object(
    {
      scanned: Type.Integer({ description: `Stored ${what} looked at.` }),
      reencrypted: Type.Integer({ description: 'Re-sealed under the current encryption key in this run.' }),
      unreadable: Type.Integer({
        description: 'Sealed under an encryption key no longer configured: skipped, to be entered again.',
      }),
    },
    { description: `Re-encryption of ${what}.` },
  );

export const RotateApiKeysResult = Type.Object({
  provider_keys: Counts('provider API keys'),
  exchange_credentials: Counts('exchange credentials'),
  two_factor_secrets: Counts('two-factor (TOTP) secrets'),
  rotation_reminders: Type.Object(
    {
      due: Type.Integer({ description: `Active provider keys overdue or due within ${ROTATION_WINDOW_DAYS} days.` }),
      overdue: Type.Integer({ description: 'Of those, the ones already overdue.' }),
      notification_queued: Type.Boolean({
        description: 'Whether this run queued the chat notification (at most one per UTC day).',
      }),
    },
    { description: 'Provider keys due for rotation.' },
  ),
});
export type RotateApiKeysResult = Static<typeof RotateApiKeysResult>;

function whenDue(days: number): string {
  if (days < 0) return `overdue by ${-days} day${days === -1 ? '' : 's'}`;
  if (days === 0) return 'due today';
  return `due in ${days} day${days === 1 ? '' : 's'}`;
}

async function rotateApiKeys(deps: RotateApiKeysDeps, now: Date): Promise<RotateApiKeysResult> {
  const providerKeys = await deps.providerKeys.reencryptAll();
  const exchangeCredentials = await deps.exchangeCredentials.reencryptAll();
  const twoFactorSecrets = await deps.twoFactorSecrets.reencryptAll();
  const reminders = await deps.providerKeys.rotationReminders(now, ROTATION_WINDOW_DAYS);
  const overdue = reminders.filter((r) => r.daysUntilRotation < 0).length;
  let queued = false;
  if (reminders.length > 0) {
    // Provider and id only: not even the key prefix goes to chat.
    const message: ChatMessage = {
      source: 'jobs',
      title: 'Provider API keys due for rotation',
      text:
        `${reminders.length} active provider key${reminders.length === 1 ? ' is' : 's are'} overdue or due for ` +
        `rotation within ${ROTATION_WINDOW_DAYS} days (${overdue} overdue).`,
      level: overdue > 0 ? 'warning' : 'info',
      fields: reminders.map((r) => ({
        name: r.provider,
        value: `${whenDue(r.daysUntilRotation)} (${r.nextRotationDate.toISOString().slice(0, 10)}), key id ${r.id}`,
      })),
    };
    queued = await deps.notify(message, now, `jobs:rotate-api-keys:reminders:${now.toISOString().slice(0, 10)}`);
  }
  return {
    provider_keys: providerKeys,
    exchange_credentials: exchangeCredentials,
    two_factor_secrets: twoFactorSecrets,
    rotation_reminders: { due: reminders.length, overdue, notification_queued: queued },
  };
}

export const rotateApiKeysJob = defineJob({
  name: 'rotate-api-keys',
  cron: '0 3 * * *',
  summary: 'Re-encrypt stored secrets and remind of provider key rotation',
  description:
    'Re-seals under the current ENCRYPTION_KEY every provider API key, exchange credential and two-factor ' +
    'secret still sealed under a key in ENCRYPTION_KEYS_OLD (one compare-and-swap per row, so a concurrent ' +
    'change wins); a secret whose key is no longer configured is skipped and counted as `unreadable`. Then ' +
    'queues one chat notification per UTC day listing the active provider keys overdue or due ' +
    `within ${ROTATION_WINDOW_DAYS} days (provider, due date and key id; never key material). A second run ` +
    're-encrypts nothing and queues nothing.',
  result: RotateApiKeysResult,
  run: rotateApiKeys,
});
