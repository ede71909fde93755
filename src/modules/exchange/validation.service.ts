// Trying a key against its venue before (or after) it is stored. The answer is always a verdict with
// a cause, never an error status for what the venue said; stored credentials with the same key get
// the verdict too.
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import type { EventPublisher } from '../streams/index.ts';
import type { EXCHANGE_EVENTS } from './exchange.events.ts';
import { VenueError, type KeyPermissions, type VenueCredentials, type VenueGateway } from './adapters/venue-gateway.ts';
import type { CredentialsRepository } from './credentials.repository.ts';
import type { CredentialOutcome, CredentialsService, AccountActor } from './credentials.service.ts';
import type { Venue } from './venues.domain.ts';
import type { ValidateBody, ValidationResult } from './credentials.schemas.ts';

/** Why a key is not usable; the list is the response schema's. */
type ValidationCause = NonNullable<ValidationResult['cause']>;

/** What the venue said about a key. */
interface KeyVerdict {
  valid: boolean;
  cause: ValidationCause | null;
  message: string;
  permissions: KeyPermissions | null;
  ipRestricted: boolean | null;
  currenciesWithBalance: number | null;
  warnings: string[];
  /** Seconds to wait before trying again, after a rate limit. */
  retryAfter: number | null;
}

/** A verdict on a key, when it was reached and the user's stored credentials it was recorded on. */
export interface KeyValidation extends KeyVerdict {
  exchange: Venue;
  checkedAt: Date;
  updatedCredentialIds: string[];
}

const SIBLING: Partial<Record<Venue, Venue>> = { binance: 'binanceus', binanceus: 'binance' };

function causeOf(error: VenueError): ValidationCause {
  switch (error.failure) {
    case 'invalid_key':
    case 'ip_not_whitelisted':
    case 'missing_permission':
      return error.failure;
    case 'rate_limited':
    case 'ip_banned':
      return 'rate_limited';
    case 'unreachable':
    case 'timeout':
    case 'maintenance':
      return 'venue_unreachable';
    default:
      return 'venue_error';
  }
}

export function createValidationService(deps: {
  db: Db;
  gateway: Pick<VenueGateway, 'keyCheck' | 'describe'>;
  repo: CredentialsRepository;
  credentials: Pick<CredentialsService, 'open' | 'record'>;
  clock: Clock;
  events: Pick<EventPublisher<typeof EXCHANGE_EVENTS>, 'user'>;
}) {
  const { gateway } = deps;

  async function verdict(input: ValidateBody, owner: string): Promise<KeyVerdict> {
    const base = {
      permissions: null,
      ipRestricted: null,
      currenciesWithBalance: null,
      warnings: [],
      retryAfter: null,
    };
    const venue = input.exchange;
    if (!input.api_passphrase && (await gateway.describe(venue)).requiresPassphrase) {
      return {
        ...base,
        valid: false,
        cause: 'missing_passphrase',
        message: `${venue} keys need their passphrase (api_passphrase)`,
      };
    }
    const credentials: VenueCredentials = {
      apiKey: input.api_key,
      secret: input.api_secret,
      passphrase: input.api_passphrase ?? null,
      owner,
    };
    try {
      const { currencies, scope } = await gateway.keyCheck(venue, credentials);
      const warnings: string[] = [];
      if (scope.permissions?.withdraw)
        warnings.push('The key may withdraw funds; the platform never needs that permission.');
      if (scope.permissions?.trade && scope.ipRestricted === false) {
        warnings.push(
          'Trading is enabled without an IP restriction; the venue revokes trading on such keys after 30 days.',
        );
      }
      const result = {
        ...base,
        permissions: scope.permissions,
        ipRestricted: scope.ipRestricted,
        currenciesWithBalance: currencies,
        warnings,
      };
      if (scope.permissions && !scope.permissions.read) {
        return {
          ...result,
          valid: false,
          cause: 'missing_permission',
          message: `The key may not read account data on ${venue}`,
        };
      }
      return { ...result, valid: true, cause: null, message: `${venue} accepted the key` };
    } catch (error) {
      if (!(error instanceof VenueError)) throw error;
      const cause = causeOf(error);
      const sibling = SIBLING[venue];
      if (error.errorType === 'auth' && sibling && (await acceptedBy(sibling, credentials))) {
        return {
          ...base,
          valid: false,
          cause: 'wrong_venue',
          message: `These keys belong to ${sibling}, not ${venue}`,
        };
      }
      return {
        ...base,
        valid: false,
        cause,
        message: String(error.detail),
        retryAfter: error.retryAfterSeconds ?? null,
      };
    }
  }

  /** Binance and binance.us keys look alike; a key refused by one may be the other's. */
  async function acceptedBy(venue: Venue, credentials: VenueCredentials): Promise<boolean> {
    try {
      await gateway.keyCheck(venue, credentials);
      return true;
    } catch {
      return false;
    }
  }

  /** The user's stored credentials on the venue holding this very key. */
  async function storedWithKey(userId: string, venue: Venue, apiKey: string): Promise<string[]> {
    const rows = await deps.repo.listForUser(userId, venue);
    return rows.filter((row) => deps.credentials.open(row).apiKey === apiKey).map((row) => row.id);
  }

  return {
    async validate(input: ValidateBody, ctx: AccountActor): Promise<KeyValidation> {
      const result = await verdict(input, ctx.id);
      const now = deps.clock.now();
      const ids = await storedWithKey(ctx.id, input.exchange, input.api_key);
      const outcome: CredentialOutcome = result.valid
        ? { status: 'valid' }
        : {
            status: ['venue_unreachable', 'rate_limited', 'venue_error'].includes(result.cause!) ? 'error' : 'invalid',
            error: result.message,
          };
      for (const id of ids) await deps.credentials.record(id, outcome, false);
      await audit(
        {
          actorId: ctx.id,
          actorType: 'user',
          action: 'exchange.credential.validate',
          subjectUserId: ctx.id,
          targetType: 'exchange',
          targetId: input.exchange,
          details: { exchange: input.exchange, valid: result.valid, cause: result.cause, credential_ids: ids },
          ip: ctx.ip,
        },
        now,
        deps.db,
      );
      await deps.events.user(ctx.id, 'credential.validated', {
        exchange: input.exchange,
        valid: result.valid,
        cause: result.cause,
        credential_ids: ids,
      });
      return { ...result, exchange: input.exchange, checkedAt: now, updatedCredentialIds: ids };
    },
  };
}
