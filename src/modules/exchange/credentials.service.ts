// Users' venue credentials: sealed at rest, never returned, always scoped to their owner. Other
// services borrow a credential through `use`, which keeps its validation fields current.
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { audit } from './exchange.audit.ts';
import type { Actor } from '../../platform/auth/actor.ts';
import type { Clock } from '../../platform/clock.ts';
import type { SecretBox } from '../../platform/crypto/secret-box.ts';
import type { Db, DbExecutor } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { badRequest, conflict, invalidField, notFound } from '../../platform/http/errors.ts';
import { VenueError, type VenueCredentials, type VenueDescription } from './adapters/venue-gateway.ts';
import type {
  CredentialOutcome,
  CredentialPatch,
  CredentialRow,
  CredentialsRepository,
} from './credentials.repository.ts';
import { maskApiKey, sealedAt } from './credentials.domain.ts';
import { chosenCredential } from './credential-join.ts';
import type { CredentialCreateBody, CredentialUpdateBody } from './credentials.schemas.ts';
import type { Venue } from './venues.domain.ts';

/** Who acts on a user's exchange account: the user (`actorOf(request)`), or the sync-accounts job for them. */
export type AccountActor = Actor & { byJob?: boolean };

/** The audit actor: the user, or the job acting for them (no actor id). */
export function auditActor(ctx: AccountActor): { actorId: string | null; actorType: 'user' | 'job' } {
  return ctx.byJob ? { actorId: null, actorType: 'job' } : { actorId: ctx.id, actorType: 'user' };
}

/** What a venue call with a credential revealed about it. */
export type { CredentialOutcome };

/** What a venue failure says about the credential: refused keys are invalid, the rest unknown. */
function outcomeOf(error: VenueError): CredentialOutcome {
  return { status: error.errorType === 'auth' ? 'invalid' : 'error', error: String(error.detail) };
}

export function createCredentialsService(deps: {
  db: Db;
  repo: CredentialsRepository;
  secretBox: SecretBox;
  clock: Clock;
  logger: Logger;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
  describe: (venue: Venue) => Promise<VenueDescription>;
  /** Drops what this process keeps opened for a credential that changed or was deleted (decision 261). */
  forget?: (credentialId: string) => void;
}) {
  const { db, repo, secretBox, clock } = deps;

  const sealOptional = (id: string, value: string | null | undefined) =>
    value ? secretBox.seal(value, sealedAt(id, 'api_passphrase_sealed')) : null;

  async function requirePassphrase(venue: Venue, passphrase: string | null | undefined, loc: string[]): Promise<void> {
    if (passphrase) return;
    if ((await deps.describe(venue)).requiresPassphrase) {
      throw invalidField(
        loc,
        `${venue} API keys come with a passphrase; api_passphrase is required`,
        passphrase ?? null,
      );
    }
  }

  async function owned(userId: string, id: string): Promise<CredentialRow> {
    const row = await repo.findForUser(userId, id);
    if (!row) throw notFound('Credential not found');
    return row;
  }

  /**
   * The user's credential on that venue, active or not: reads of what it stored need no more.
   * 404 for another user's or an unknown id, 400 for a credential of another venue.
   */
  async function ownedOn(userId: string, venue: Venue, id: string): Promise<CredentialRow> {
    const row = await owned(userId, id);
    if (row.exchangeName !== venue) throw badRequest(`Credential ${id} is for ${row.exchangeName}, not ${venue}`);
    return row;
  }

  function open(row: CredentialRow): VenueCredentials {
    return {
      owner: row.userId,
      apiKey: secretBox.open(row.apiKeySealed, sealedAt(row.id, 'api_key_sealed')),
      secret: secretBox.open(row.apiSecretSealed, sealedAt(row.id, 'api_secret_sealed')),
      passphrase: row.apiPassphraseSealed
        ? secretBox.open(row.apiPassphraseSealed, sealedAt(row.id, 'api_passphrase_sealed'))
        : null,
    };
  }

  /** Validation fields after a venue answered (or failed to); `used` also stamps last_used. */
  async function record(id: string, outcome: CredentialOutcome, used: boolean): Promise<void> {
    await repo
      .recordOutcome(id, outcome, used, clock.now())
      .catch((error: unknown) =>
        deps.logger.warn({ err: error, credentialId: id }, 'could not record credential outcome'),
      );
  }

  /** Runs a venue call with the credential and records what it showed about the key. */
  async function use<T>(row: CredentialRow, run: (credentials: VenueCredentials) => Promise<T>): Promise<T> {
    try {
      const result = await run(open(row));
      await record(row.id, { status: 'valid' }, true);
      return result;
    } catch (error) {
      if (error instanceof VenueError) await record(row.id, outcomeOf(error), true);
      throw error;
    }
  }

  return {
    async list(userId: string, exchangeName?: string): Promise<CredentialRow[]> {
      return repo.listForUser(userId, exchangeName);
    },

    async get(userId: string, id: string): Promise<CredentialRow> {
      return owned(userId, id);
    },

    async create(input: CredentialCreateBody, ctx: AccountActor): Promise<CredentialRow> {
      await requirePassphrase(input.exchange_name, input.api_passphrase, ['body', 'api_passphrase']);
      const now = clock.now();
      // The id is chosen here: each secret is sealed bound to its row.
      const id = randomUUID();
      const row = await db.transaction(async (tx) => {
        const created = await repo.insert(
          {
            id,
            userId: ctx.id,
            exchangeName: input.exchange_name,
            credentialName: input.credential_name ?? 'Default',
            apiKeySealed: secretBox.seal(input.api_key, sealedAt(id, 'api_key_sealed')),
            apiSecretSealed: secretBox.seal(input.api_secret, sealedAt(id, 'api_secret_sealed')),
            apiPassphraseSealed: sealOptional(id, input.api_passphrase),
            apiKeyMasked: maskApiKey(input.api_key),
            permissions: [...new Set(input.permissions ?? ['read'])],
            ipWhitelist: [...new Set(input.ip_whitelist ?? [])],
            exchangeMetadata: input.exchange_metadata ?? {},
            createdAt: now,
            updatedAt: now,
          },
          tx,
        );
        if (!created)
          throw conflict(
            `You already have a ${input.exchange_name} credential named "${input.credential_name ?? 'Default'}"`,
          );
        await audit(
          {
            actorId: ctx.id,
            actorType: 'user',
            action: 'exchange.credential.create',
            subjectUserId: ctx.id,
            targetType: 'exchange_credential',
            targetId: created.id,
            details: {
              exchange: created.exchangeName,
              credential_name: created.credentialName,
              has_passphrase: created.apiPassphraseSealed !== null,
            },
            ip: ctx.ip,
          },
          now,
          tx,
        );
        return created;
      });
      await deps.events.user(ctx.id, 'credential.changed', {
        credential_id: row.id,
        exchange: row.exchangeName,
        change: 'created',
        changed_fields: [],
      });
      return row;
    },

    async update(id: string, input: CredentialUpdateBody, ctx: AccountActor): Promise<CredentialRow> {
      const current = await owned(ctx.id, id);
      const venue = current.exchangeName as Venue;
      if (input.api_passphrase === null || input.api_passphrase !== undefined) {
        await requirePassphrase(venue, input.api_passphrase, ['body', 'api_passphrase']);
      }
      const now = clock.now();
      const patch: CredentialPatch = { updatedAt: now };
      if (input.credential_name !== undefined) patch.credentialName = input.credential_name;
      if (input.api_key !== undefined) {
        patch.apiKeySealed = secretBox.seal(input.api_key, sealedAt(id, 'api_key_sealed'));
        patch.apiKeyMasked = maskApiKey(input.api_key);
      }
      if (input.api_secret !== undefined)
        patch.apiSecretSealed = secretBox.seal(input.api_secret, sealedAt(id, 'api_secret_sealed'));
      if (input.api_passphrase !== undefined) patch.apiPassphraseSealed = sealOptional(id, input.api_passphrase);
      if (input.permissions !== undefined) patch.permissions = [...new Set(input.permissions)];
      if (input.ip_whitelist !== undefined) patch.ipWhitelist = [...new Set(input.ip_whitelist)];
      if (input.exchange_metadata !== undefined) patch.exchangeMetadata = input.exchange_metadata;
      if (input.is_active !== undefined) patch.isActive = input.is_active;
      const keysChanged =
        input.api_key !== undefined || input.api_secret !== undefined || input.api_passphrase !== undefined;
      if (keysChanged) {
        // New keys are unproven until a venue accepts them.
        Object.assign(patch, { validationStatus: 'pending', validationError: null, lastValidation: null });
      }
      const changed = Object.keys(input)
        .filter((k) => (input as Record<string, unknown>)[k] !== undefined)
        .sort();
      const row = await db.transaction(async (tx) => {
        const updated = await repo.update(ctx.id, id, patch, tx);
        if (!updated) throw notFound('Credential not found');
        if (updated === 'name_taken')
          throw conflict(`You already have a ${venue} credential named "${input.credential_name}"`);
        await audit(
          {
            actorId: ctx.id,
            actorType: 'user',
            action: 'exchange.credential.update',
            subjectUserId: ctx.id,
            targetType: 'exchange_credential',
            targetId: id,
            details: { exchange: updated.exchangeName, changed_fields: changed },
            ip: ctx.ip,
          },
          now,
          tx,
        );
        return updated;
      });
      deps.forget?.(id);
      await deps.events.user(ctx.id, 'credential.changed', {
        credential_id: id,
        exchange: row.exchangeName,
        change: 'updated',
        changed_fields: changed,
      });
      return row;
    },

    async remove(id: string, ctx: AccountActor): Promise<void> {
      const now = clock.now();
      const exchange = await db.transaction(async (tx) => {
        const row = await repo.findForUser(ctx.id, id, tx);
        if (!row || !(await repo.delete(ctx.id, id, tx))) throw notFound('Credential not found');
        await audit(
          {
            actorId: ctx.id,
            actorType: 'user',
            action: 'exchange.credential.delete',
            subjectUserId: ctx.id,
            targetType: 'exchange_credential',
            targetId: id,
            details: { exchange: row.exchangeName, credential_name: row.credentialName },
            ip: ctx.ip,
          },
          now,
          tx,
        );
        return row.exchangeName;
      });
      deps.forget?.(id);
      await deps.events.user(ctx.id, 'credential.changed', {
        credential_id: id,
        exchange,
        change: 'deleted',
        changed_fields: [],
      });
    },

    /**
     * A provider's first link claimed the account from whoever registered its address (decision 790): every
     * credential on it is theirs, not the address owner's, and goes in the link's transaction, audited as the
     * service's deletion. Answers what follows the commit: the opened clients dropped, the stream told.
     */
    async removeAllOnClaim(userId: string, now: Date, tx: DbExecutor): Promise<(() => Promise<void>) | undefined> {
      const rows = await repo.deleteAllOf(userId, tx);
      if (rows.length === 0) return undefined;
      for (const row of rows)
        await audit(
          {
            actorType: 'system',
            action: 'exchange.credential.delete',
            subjectUserId: userId,
            targetType: 'exchange_credential',
            targetId: row.id,
            details: {
              exchange: row.exchangeName,
              credential_name: row.credentialName,
              reason: 'external_identity_claimed',
            },
          },
          now,
          tx,
        );
      return async () => {
        for (const row of rows) {
          deps.forget?.(row.id);
          await deps.events.user(userId, 'credential.changed', {
            credential_id: row.id,
            exchange: row.exchangeName,
            change: 'deleted',
            changed_fields: [],
          });
        }
      };
    },

    /** The named credential (it must be the user's, for that venue, active) or the user's default one. */
    async resolve(userId: string, venue: Venue, credentialId?: string): Promise<CredentialRow> {
      const row = credentialId ? await repo.findForUser(userId, credentialId) : await repo.findDefault(userId, venue);
      return chosenCredential(row, venue, credentialId);
    },

    ownedOn,

    open,
    use,
    record,
  };
}

export type CredentialsService = ReturnType<typeof createCredentialsService>;
