import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { audit } from './provider-keys.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Db } from '../../platform/db/database.ts';
import { invalidField, notFound } from '../../platform/http/errors.ts';
import type { ProviderProbe } from './adapters/provider-probe.ts';
import {
  daysUntil,
  keyPrefix,
  nextRotationDate,
  reminderCutoff,
  REMINDER_WINDOW_DAYS,
  sealedAt,
  type Provider,
} from './provider-keys.domain.ts';
import type { KeyPatch, KeyRow, ProviderKeysRepository } from './provider-keys.repository.ts';
import type { KeyCreateBody, KeyUpdateBody } from './provider-keys.schemas.ts';
import type { Actor } from '../../platform/auth/actor.ts';

export type { Actor };

const keyNotFound = () => notFound('API key not found');
const REENCRYPT_PAGE = 100;

/** What calling the provider with a stored key showed. */
export interface KeyTest {
  provider: string;
  isValid: boolean;
  errorMessage: string | null;
  responseTimeMs: number;
  testedAt: Date;
}

/** An active key whose rotation is overdue or due soon. */
export interface RotationDue {
  id: string;
  provider: string;
  keyPrefix: string;
  nextRotationDate: Date;
  /** Negative when overdue. */
  daysUntilRotation: number;
}

export function createProviderKeysService(deps: {
  db: Db;
  repo: ProviderKeysRepository;
  secretBox: SecretBox;
  probe: ProviderProbe;
  clock: Clock;
  logger: Logger;
}) {
  const { db, repo, secretBox, probe, clock, logger } = deps;

  return {
    async list(includeInactive: boolean): Promise<KeyRow[]> {
      return repo.list(includeInactive);
    },

    async create(body: KeyCreateBody, actor: Actor): Promise<KeyRow> {
      const now = clock.now();
      // The id is chosen here: the key is sealed bound to its row.
      const id = randomUUID();
      const days = body.rotation_reminder_days ?? 90;
      return db.transaction(async (tx) => {
        const row = await repo.insert(
          {
            id,
            provider: body.provider,
            encryptedKey: secretBox.seal(body.api_key, sealedAt(id)),
            keyPrefix: keyPrefix(body.api_key),
            rotationReminderDays: days,
            nextRotationDate: nextRotationDate(null, now, days),
            notes: body.notes ?? null,
            createdAt: now,
            updatedAt: now,
            createdBy: actor.id,
            updatedBy: actor.id,
          },
          tx,
        );
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'provider_key.create',
            targetType: 'provider_api_key',
            targetId: row.id,
            details: { provider: row.provider },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
    },

    async update(id: string, body: KeyUpdateBody, actor: Actor): Promise<KeyRow> {
      const now = clock.now();
      const rotatedAt = body.last_rotated_at ? new Date(body.last_rotated_at) : undefined;
      if (rotatedAt && rotatedAt > now) {
        throw invalidField(
          ['body', 'last_rotated_at'],
          'last_rotated_at cannot be in the future',
          body.last_rotated_at,
        );
      }
      return db.transaction(async (tx) => {
        const current = await repo.findForUpdate(id, tx);
        if (!current) throw keyNotFound();
        const patch: KeyPatch = {};
        const changed: string[] = [];
        if (body.is_active !== undefined && body.is_active !== current.isActive) {
          patch.isActive = body.is_active;
          changed.push('is_active');
        }
        if (body.rotation_reminder_days !== undefined && body.rotation_reminder_days !== current.rotationReminderDays) {
          patch.rotationReminderDays = body.rotation_reminder_days;
          changed.push('rotation_reminder_days');
        }
        if (body.notes !== undefined && body.notes !== current.notes) {
          patch.notes = body.notes;
          changed.push('notes');
        }
        if (body.api_key !== undefined) {
          patch.encryptedKey = secretBox.seal(body.api_key, sealedAt(id));
          patch.keyPrefix = keyPrefix(body.api_key);
          changed.push('api_key');
        }
        // New key material is a rotation even without an explicit date.
        const lastRotatedAt = rotatedAt ?? (body.api_key !== undefined ? now : undefined);
        if (lastRotatedAt) {
          patch.lastRotatedAt = lastRotatedAt;
          changed.push('last_rotated_at');
        }
        if (changed.length === 0) return current;

        patch.nextRotationDate = nextRotationDate(
          patch.lastRotatedAt ?? current.lastRotatedAt,
          current.createdAt,
          patch.rotationReminderDays ?? current.rotationReminderDays,
        );
        const row = await repo.update(id, { ...patch, updatedAt: now, updatedBy: actor.id }, tx);
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: body.api_key !== undefined || rotatedAt ? 'provider_key.rotate' : 'provider_key.update',
            targetType: 'provider_api_key',
            targetId: id,
            details: { provider: row.provider, changed },
            ip: actor.ip,
          },
          now,
          tx,
        );
        return row;
      });
    },

    async remove(id: string, actor: Actor): Promise<void> {
      const now = clock.now();
      await db.transaction(async (tx) => {
        const row = await repo.delete(id, tx);
        if (!row) throw keyNotFound();
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'provider_key.delete',
            targetType: 'provider_api_key',
            targetId: id,
            details: { provider: row.provider },
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
    },

    /** Calls the provider with the key; every failure is reported in the answer, none raised. */
    async test(id: string, actor: Actor): Promise<KeyTest> {
      const row = await repo.find(id);
      if (!row) throw keyNotFound();
      let apiKey: string | undefined;
      try {
        apiKey = secretBox.open(row.encryptedKey, sealedAt(row.id));
      } catch (error) {
        logger.error({ keyId: id, err: error }, 'a stored provider key could not be decrypted');
      }
      const started = performance.now();
      const outcome = apiKey
        ? await probe.check(row.provider as Provider, apiKey)
        : {
            isValid: false,
            status: null,
            errorMessage: 'The stored key cannot be decrypted with the configured encryption keys; enter it again',
          };
      const elapsed = Math.round(performance.now() - started);
      const now = clock.now();
      await db.transaction(async (tx) => {
        if (!apiKey || !(await repo.recordUse(id, now, tx))) return;
        await audit(
          {
            actorId: actor.id,
            actorType: 'admin',
            action: 'provider_key.test',
            targetType: 'provider_api_key',
            targetId: id,
            details: { provider: row.provider, is_valid: outcome.isValid, status: outcome.status },
            ip: actor.ip,
          },
          now,
          tx,
        );
      });
      return {
        provider: row.provider,
        isValid: outcome.isValid,
        errorMessage: outcome.errorMessage,
        responseTimeMs: elapsed,
        testedAt: now,
      };
    },

    /** Active keys whose rotation is overdue or due within `withinDays`, soonest first. */
    async rotationReminders(
      now: Date = clock.now(),
      withinDays: number = REMINDER_WINDOW_DAYS,
    ): Promise<RotationDue[]> {
      const rows = await repo.dueForRotation(reminderCutoff(now, withinDays));
      return rows.map((row) => ({
        id: row.id,
        provider: row.provider,
        keyPrefix: row.keyPrefix,
        nextRotationDate: row.nextRotationDate,
        daysUntilRotation: daysUntil(row.nextRotationDate, now),
      }));
    },

    /**
     * Re-seals under the current encryption key every key sealed under a retired one; a key sealed
     * under an encryption key no longer configured is skipped and counted as `unreadable`.
     */
    async reencryptAll(): Promise<{ scanned: number; reencrypted: number; unreadable: number }> {
      let scanned = 0;
      let reencrypted = 0;
      let unreadable = 0;
      let after: string | null = null;
      for (;;) {
        const page = await repo.sealedPage(after, REENCRYPT_PAGE);
        if (page.length === 0) break;
        for (const { id, encryptedKey } of page) {
          scanned += 1;
          if (!secretBox.isStale(encryptedKey)) continue;
          let resealed: string;
          try {
            resealed = secretBox.reseal(encryptedKey, sealedAt(id));
          } catch (error) {
            // Sealed under a key no longer configured: leave it for an admin to enter again.
            logger.warn({ keyId: id, err: error }, 'provider key could not be re-encrypted');
            unreadable += 1;
            continue;
          }
          const now = clock.now();
          const swapped = await db.transaction(async (tx) => {
            if (!(await repo.replaceSealed(id, encryptedKey, resealed, tx))) return false;
            await audit(
              {
                actorType: 'job',
                action: 'provider_key.reencrypt',
                targetType: 'provider_api_key',
                targetId: id,
                details: { encryption_key_id: secretBox.currentKeyId },
              },
              now,
              tx,
            );
            return true;
          });
          if (swapped) reencrypted += 1;
        }
        after = page[page.length - 1]!.id;
      }
      return { scanned, reencrypted, unreadable };
    },
  };
}

export type ProviderKeysService = ReturnType<typeof createProviderKeysService>;
