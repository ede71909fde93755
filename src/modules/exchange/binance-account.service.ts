// Binance account settings with the user's own credential: paying spot fees with the fee token
// (BNB burn, global Binance only) and the small balances that could be converted into it.
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { badRequest } from '../../platform/http/errors.ts';
import type { DustAssets, FeeTokenBurn, VenueGateway } from './adapters/venue-gateway.ts';
import type { CredentialsService, AccountActor } from './credentials.service.ts';
import type { BinanceVenue } from './venues.domain.ts';

/** The fee-token burn setting of the credential's account. */
export interface BurnSetting {
  venue: BinanceVenue;
  credentialId: string;
  burn: FeeTokenBurn;
}

/** The small balances of the credential's account that could be converted into the fee token. */
export interface DustReport {
  venue: BinanceVenue;
  credentialId: string;
  dust: DustAssets;
}

export function createBinanceAccountService(deps: {
  db: Db;
  gateway: Pick<VenueGateway, 'feeTokenBurn' | 'setFeeTokenBurn' | 'dustAssets'>;
  credentials: Pick<CredentialsService, 'resolve' | 'use'>;
  clock: Clock;
}) {
  const { gateway, credentials } = deps;

  // binance.us has no bnbBurn endpoint: say so before looking for a credential or calling anyone.
  function requireGlobal(venue: BinanceVenue): void {
    if (venue !== 'binance')
      throw badRequest(`Fee-token burn is not supported on ${venue}; it exists on binance only (exchange=binance)`);
  }

  return {
    async feeTokenBurn(venue: BinanceVenue, ctx: AccountActor): Promise<BurnSetting> {
      requireGlobal(venue);
      const credential = await credentials.resolve(ctx.id, venue);
      const burn = await credentials.use(credential, (keys) => gateway.feeTokenBurn(venue, keys));
      return { venue, credentialId: credential.id, burn };
    },

    async setFeeTokenBurn(venue: BinanceVenue, spot: boolean, ctx: AccountActor): Promise<BurnSetting> {
      requireGlobal(venue);
      const credential = await credentials.resolve(ctx.id, venue);
      const burn = await credentials.use(credential, (keys) => gateway.setFeeTokenBurn(venue, keys, spot));
      await audit(
        {
          actorId: ctx.id,
          actorType: 'user',
          action: 'exchange.feetoken_burn.update',
          subjectUserId: ctx.id,
          targetType: 'exchange_credential',
          targetId: credential.id,
          details: { exchange: venue, spot_feetoken_burn: burn.spot },
          ip: ctx.ip,
        },
        deps.clock.now(),
        deps.db,
      );
      return { venue, credentialId: credential.id, burn };
    },

    async dustAssets(venue: BinanceVenue, ctx: AccountActor): Promise<DustReport> {
      const credential = await credentials.resolve(ctx.id, venue);
      const dust = await credentials.use(credential, (keys) => gateway.dustAssets(venue, keys));
      return { venue, credentialId: credential.id, dust };
    },
  };
}
