// The paper account on the wire: GET /api/paper/account and POST /api/paper/account/reset.
import { Type, type Static } from 'typebox';
import { Nullable } from '../../platform/http/schemas.ts';

export const tags = ['paper'];

const DECIMAL = '^[0-9]{1,20}(\\.[0-9]{1,18})?$';
const ASSET = '^[A-Z0-9]{1,20}$';

export const PaperBalance = Type.Object({
  asset: Type.String({ description: 'Asset code, e.g. `BTC`.' }),
  free: Type.String({ description: 'Available to new orders, a decimal string.' }),
  locked: Type.String({ description: 'Held by resting limit orders, a decimal string.' }),
});

export const PaperAccount = Type.Object(
  {
    quote: Type.String({ description: 'The asset `equity` is counted in.' }),
    balances: Type.Array(PaperBalance, { description: 'Every asset held, by asset code.' }),
    equity: Nullable(
      Type.String({
        description:
          'The balances (free and locked) valued in `quote` at last prices, a decimal string; null when ' +
          'the prices cannot be read now.',
      }),
    ),
    unpriced: Type.Array(Type.String(), {
      description: 'Assets held that no listed pair with `quote` prices: left out of `equity`.',
    }),
    source: Type.String({
      description: 'Where the books and prices come from: `binance`, or `simulated` (MARKET_DATA_SOURCE).',
    }),
  },
  { description: 'Your paper trading account.' },
);
export type PaperAccount = Static<typeof PaperAccount>;

export const PaperResetBody = Type.Object(
  {
    balances: Type.Record(
      Type.String({ pattern: ASSET }),
      Type.String({ pattern: DECIMAL, description: 'A non-negative decimal string.' }),
      {
        additionalProperties: false,
        minProperties: 1,
        maxProperties: 50,
        description: 'What the account holds afterwards: asset code → amount, e.g. `{"USDT": "10000"}`.',
      },
    ),
  },
  { additionalProperties: false },
);
export type PaperResetBody = Static<typeof PaperResetBody>;
