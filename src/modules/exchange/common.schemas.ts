// Request pieces shared by the exchange routes.
import { Type } from 'typebox';
import { DateTime, StringEnum, Uuid } from '../../platform/http/schemas.ts';
import { BINANCE_VENUES, DEFAULT_VENUE, VENUES } from './venues.domain.ts';

export const tags = ['exchange'];

const venueList = VENUES.join(', ');

export const VenueField = (description = 'Venue (ccxt id).') =>
  StringEnum(VENUES, { description: `${description} One of: ${venueList}.` });

/** The fee-token endpoints take one of the two Binance venues, reported as Pydantic's `literal_error`. */
export const BinanceVenueField = () =>
  StringEnum(BINANCE_VENUES, {
    literal: true,
    default: DEFAULT_VENUE as (typeof BINANCE_VENUES)[number],
    description: `binanceus (the default US venue) or binance (the global venue). Default ${DEFAULT_VENUE}.`,
  });

export const CredentialIdField = () =>
  Uuid('A credential of yours for this venue; your active one when omitted (a validated one first, then the newest).');

export const StartDate = () => Type.Optional(DateTime('Only from this instant on (ISO 8601).'));
export const EndDate = () => Type.Optional(DateTime('Only up to this instant (ISO 8601).'));

/** History and list pages: the contract's default of 100, bounded at 1000 (docs/decisions/035). */
export const PageLimit = () =>
  Type.Integer({ minimum: 1, maximum: 1000, default: 100, description: 'Rows to return, 1 to 1000. Default 100.' });

export const ErrorTypeField = () =>
  Type.Union([StringEnum(['auth', 'rate_limit', 'network', 'exchange'] as const), Type.Null()], {
    description:
      'On failure: auth (the venue refused the key), rate_limit (429/418), network (unreachable, timeout, ' +
      'maintenance) or exchange (any other venue error).',
  });
