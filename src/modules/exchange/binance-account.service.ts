// Binance account settings with the user's own credential: paying spot fees with the fee token
// (BNB burn, global Binance only) and the small balances that could be converted into it.
import { audit } from './exchange.audit.ts';
import type { Clock } from '../../platform/clock.ts';
import type { Db } from '../../platform/db/database.ts';
import { badRequest } from '../../platform/http/errors.ts';
import type { DustAssets, FeeTokenBurn, VenueGateway } from './adapters/venue-gateway.ts';
import type { CredentialsService, AccountActor } from './credentials.service.ts';
import { FEE_TOKEN, type BinanceVenue } from './venues.domain.ts';

const num = (value: string | null) => (value === null ? null : Number(value));

function burnView(venue: BinanceVenue, credentialId: string, burn: FeeTokenBurn) {
  return {
    exchange: venue,
    fee_token: FEE_TOKEN,
    spot_feetoken_burn: burn.spot,
    interest_feetoken_burn: burn.interest,
    credential_id: credentialId,
  };
}

function dustView(venue: BinanceVenue, credentialId: string, dust: DustAssets) {
  return {
    exchange: venue,
    fee_token: FEE_TOKEN,
    credential_id: credentialId,
    assets: dust.assets.map((a) => ({
      asset: a.asset,
      asset_name: a.name,
      amount_free: num(a.free),
      to_btc: num(a.toBtc),
      to_feetoken: num(a.toFeeToken),
      to_feetoken_after_fee: num(a.toFeeTokenAfterFee),
      fee: num(a.fee),
      usd_value: num(a.usdValue),
    })),
    total_btc: num(dust.totalBtc),
    total_feetoken: num(dust.totalFeeToken),
    fee_rate: num(dust.feeRate),
    count: dust.assets.length,
  };
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
    async feeTokenBurn(venue: BinanceVenue, ctx: AccountActor) {
      requireGlobal(venue);
      const credential = await credentials.resolve(ctx.id, venue);
      const burn = await credentials.use(credential, (keys) => gateway.feeTokenBurn(venue, keys));
      return burnView(venue, credential.id, burn);
    },

    async setFeeTokenBurn(venue: BinanceVenue, spot: boolean, ctx: AccountActor) {
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
      return burnView(venue, credential.id, burn);
    },

    async dustAssets(venue: BinanceVenue, ctx: AccountActor) {
      const credential = await credentials.resolve(ctx.id, venue);
      const dust = await credentials.use(credential, (keys) => gateway.dustAssets(venue, keys));
      return dustView(venue, credential.id, dust);
    },
  };
}
