// SAPI endpoints for the Binance fake (Binance's spot API documentation), registered per variant as the real hosts
// have them. Global Binance: GET/POST /sapi/v1/bnbBurn, POST /sapi/v1/asset/dust-btc,
// GET /sapi/v1/account/apiRestrictions, GET /sapi/v1/system/status. binance.us: only
// GET /sapi/v1/asset/query/dust-assets and GET /sapi/v1/system/status, so the others answer 404 there.
// Per-account state lives in `account.extra` (see `SapiAccountState`).
import type { BinanceFake, FakeAccount, FakeReply, FakeRequest } from './binance.ts';

export interface DustRow {
  asset: string;
  assetFullName: string;
  amountFree: string;
  toBTC: string;
  toBNB: string;
  toBNBOffExchange: string;
  exchange: string;
  /** binance.us reports a USD value per asset. */
  usdValue?: string;
}

/** Two dust rows (ADA and TRX, with binance.us's USD values) the SAPI tests seed an account with. */
export const SAMPLE_DUST: DustRow[] = [
  {
    asset: 'ADA',
    assetFullName: 'Cardano',
    amountFree: '6.21',
    toBTC: '0.00016848',
    toBNB: '0.01777302',
    toBNBOffExchange: '0.01741756',
    exchange: '0.00035546',
    usdValue: '2.79',
  },
  {
    asset: 'TRX',
    assetFullName: 'TRON',
    amountFree: '3.50',
    toBTC: '0.00000600',
    toBNB: '0.00070000',
    toBNBOffExchange: '0.00068600',
    exchange: '0.00001400',
    usdValue: '0.42',
  },
];

export interface ApiRestrictions {
  ipRestrict: boolean;
  createTime: number;
  enableReading: boolean;
  enableWithdrawals: boolean;
  enableInternalTransfer: boolean;
  enableMargin: boolean;
  enableFutures: boolean;
  permitsUniversalTransfer: boolean;
  enableVanillaOptions: boolean;
  enableFixApiTrade: boolean;
  enableFixReadOnly: boolean;
  enableSpotAndMarginTrading: boolean;
  enablePortfolioMarginTrading: boolean;
}

export interface SapiAccountState {
  bnbBurn?: { spotBNBBurn: boolean; interestBNBBurn: boolean };
  /** enableReading follows `FakeAccount.canRead` (a key that may not read never gets this far). */
  restrictions?: Partial<Omit<ApiRestrictions, 'enableReading'>>;
  dust?: DustRow[];
}

export interface SapiControl {
  /** `/sapi/v1/system/status` answers `{status:1, msg:"system maintenance"}` while true. */
  maintenance: boolean;
  /** SAPI IP weight used in the current minute (reported in X-SAPI-USED-IP-WEIGHT-1M). */
  usedIpWeight: number;
}

const error = (status: number, code: number, msg: string): FakeReply => ({ status, body: { code, msg } });

function state(account: FakeAccount): SapiAccountState {
  account.extra ??= {};
  return account.extra as SapiAccountState;
}

function restrictionsOf(account: FakeAccount): ApiRestrictions {
  return {
    ipRestrict: false,
    createTime: 1_700_000_000_000,
    enableWithdrawals: account.canWithdraw ?? false,
    enableInternalTransfer: false,
    enableMargin: false,
    enableFutures: false,
    permitsUniversalTransfer: false,
    enableVanillaOptions: false,
    enableFixApiTrade: false,
    enableFixReadOnly: false,
    enableSpotAndMarginTrading: account.canTrade ?? true,
    enablePortfolioMarginTrading: false,
    ...state(account).restrictions,
    enableReading: account.canRead ?? true,
  };
}

/** Sums decimal strings exactly (8 places, as Binance prints them). */
function sum(values: string[]): string {
  const scaled = values.reduce((total, v) => total + BigInt(Math.round(Number(v) * 1e8)), 0n);
  const negative = scaled < 0n;
  const digits = (negative ? -scaled : scaled).toString().padStart(9, '0');
  return `${negative ? '-' : ''}${digits.slice(0, -8)}.${digits.slice(-8)}`;
}

export function registerBinanceSapi(fake: BinanceFake): SapiControl {
  const control: SapiControl = { maintenance: false, usedIpWeight: 0 };
  let window = 0;
  const weigh = (reply: FakeReply, weight: number): FakeReply => {
    const minute = Math.floor(Date.now() / 60_000);
    if (minute !== window) {
      window = minute;
      control.usedIpWeight = 0;
    }
    control.usedIpWeight += weight;
    return { ...reply, headers: { ...reply.headers, 'x-sapi-used-ip-weight-1m': String(control.usedIpWeight) } };
  };
  const signed = (handler: (r: FakeRequest, account: FakeAccount) => FakeReply, weight: number) => (r: FakeRequest) =>
    weigh(handler(r, r.account!), weight);

  fake.route('GET', '/sapi/v1/system/status', () =>
    weigh({ body: control.maintenance ? { status: 1, msg: 'system maintenance' } : { status: 0, msg: 'normal' } }, 1),
  );

  if (fake.variant === 'us') {
    fake.route(
      'GET',
      '/sapi/v1/asset/query/dust-assets',
      signed((_r, account) => {
        const rows = state(account).dust ?? [];
        return {
          body: {
            convertibleAssets: rows.map((d) => ({
              fromAsset: d.asset,
              toAsset: 'BNB',
              availableBalance: d.amountFree,
              convertedAsset: d.toBNB,
              usdValueConvertedAsset: d.usdValue ?? '0',
              conversionFee: d.exchange,
              receivedAsset: d.toBNBOffExchange,
            })),
            totalConvertedAsset: sum(rows.map((d) => d.toBNB)),
            totalUsdValueConvertedAsset: sum(rows.map((d) => d.usdValue ?? '0')),
            totalConversionFee: sum(rows.map((d) => d.exchange)),
            totalReceivedAsset: sum(rows.map((d) => d.toBNBOffExchange)),
            feeRate: '0.02',
            withinRestrictedTime: false,
          },
        };
      }, 1),
      { signed: true, weight: 0 },
    );
    return control;
  }

  const burnOf = (account: FakeAccount) => (state(account).bnbBurn ??= { spotBNBBurn: false, interestBNBBurn: false });
  fake.route(
    'GET',
    '/sapi/v1/bnbBurn',
    signed((_r, account) => ({ body: { ...burnOf(account) } }), 1),
    { signed: true, weight: 0 },
  );
  fake.route(
    'POST',
    '/sapi/v1/bnbBurn',
    signed((r, account) => {
      const spot = r.params.get('spotBNBBurn');
      const interest = r.params.get('interestBNBBurn');
      if (spot === null && interest === null) {
        return error(400, -1102, "Mandatory parameter 'spotBNBBurn' was not sent, was empty/null, or malformed.");
      }
      for (const [name, value] of [
        ['spotBNBBurn', spot],
        ['interestBNBBurn', interest],
      ] as const) {
        if (value !== null && value !== 'true' && value !== 'false') {
          return error(400, -1100, `Illegal characters found in parameter '${name}'; legal range is '^(true|false)$'.`);
        }
      }
      const burn = burnOf(account);
      if (spot !== null) burn.spotBNBBurn = spot === 'true';
      if (interest !== null) burn.interestBNBBurn = interest === 'true';
      return { body: { ...burn } };
    }, 1),
    { signed: true, weight: 0 },
  );
  fake.route(
    'POST',
    '/sapi/v1/asset/dust-btc',
    signed((r, account) => {
      const accountType = r.params.get('accountType') ?? 'SPOT';
      if (accountType !== 'SPOT' && accountType !== 'MARGIN')
        return error(400, -1100, "Illegal characters found in parameter 'accountType'.");
      const rows = accountType === 'SPOT' ? (state(account).dust ?? []) : [];
      return {
        body: {
          details: rows.map(({ usdValue: _usd, ...row }) => row),
          totalTransferBtc: sum(rows.map((d) => d.toBTC)),
          totalTransferBNB: sum(rows.map((d) => d.toBNB)),
          dribbletPercentage: '0.02',
        },
      };
    }, 1),
    { signed: true, weight: 0 },
  );
  fake.route(
    'GET',
    '/sapi/v1/account/apiRestrictions',
    signed((_r, account) => ({ body: restrictionsOf(account) }), 1),
    {
      signed: true,
      weight: 0,
    },
  );
  return control;
}
