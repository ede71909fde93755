// Fee-token burn and dust: requests and responses.
import { Type } from 'typebox';
import { Nullable, Uuid } from '../../platform/http/schemas.ts';
import { BinanceVenueField } from './common.schemas.ts';

const N = (description: string) => Nullable(Type.Number({ description }));

export const BinanceVenueQuery = Type.Object({ exchange: Type.Optional(BinanceVenueField()) });

export const FeeTokenBurnBody = Type.Object({
  spot_feetoken_burn: Type.Boolean({
    description: 'true pays spot trading fees with the fee token (BNB) for a discount.',
  }),
  exchange: Type.Optional(BinanceVenueField()),
});

export const FeeTokenBurn = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  fee_token: Type.String({ description: 'BNB.' }),
  spot_feetoken_burn: Type.Boolean({ description: 'Spot fees are paid with the fee token.' }),
  interest_feetoken_burn: Nullable(Type.Boolean({ description: 'Margin interest is paid with the fee token.' })),
  credential_id: Uuid('The credential used.'),
});

export const DustAssets = Type.Object({
  exchange: Type.String({ description: 'Venue.' }),
  fee_token: Type.String({ description: 'BNB: what dust converts into.' }),
  credential_id: Uuid('The credential used.'),
  assets: Type.Array(
    Type.Object({
      asset: Type.String({ description: 'Currency.' }),
      asset_name: Nullable(Type.String({ description: 'Full name (binance).' })),
      amount_free: N('Convertible amount.'),
      to_btc: N('Worth in BTC (binance).'),
      to_feetoken: N('BNB before the conversion fee.'),
      to_feetoken_after_fee: N('BNB received.'),
      fee: N('Conversion fee in BNB.'),
      usd_value: N('Worth in USD (binanceus).'),
    }),
    { description: 'Balances small enough to convert into BNB.' },
  ),
  total_btc: N('Σ worth in BTC (binance).'),
  total_feetoken: N('Σ BNB before fees.'),
  fee_rate: N('Conversion fee rate.'),
  count: Type.Integer({ description: 'How many assets.' }),
});
