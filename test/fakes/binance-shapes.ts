// Binance's wire shapes, as the Binance fake answers them and the tests seed its accounts with:
// `{code,msg}` error bodies, myTrades rows, and deposit and withdrawal history rows.

/** Binance's error body. */
export const binanceError = (code: number, msg: string) => ({ code, msg });
/** Binance's one answer for an unknown key, a request from outside the key's IP list and a missing permission. */
export const INVALID_KEY = binanceError(-2015, 'Invalid API-key, IP, or permissions for action.');

/** A completed deposit (status 1) in /sapi/v1/capital/deposit/hisrec's shape. */
export function binanceDeposit(fields: {
  id: string;
  coin: string;
  amount: string;
  time: number;
  txId?: string;
  status?: number;
}): Record<string, unknown> {
  return {
    id: fields.id,
    amount: fields.amount,
    coin: fields.coin,
    network: fields.coin,
    status: fields.status ?? 1,
    address: 'addr',
    addressTag: '',
    txId: fields.txId ?? `tx-${fields.id}`,
    insertTime: fields.time,
    transferType: 0,
    confirmTimes: '12/12',
    unlockConfirm: 0,
    walletType: 0,
  };
}

/** A completed withdrawal (status 6) in /sapi/v1/capital/withdraw/history's shape: applyTime is a UTC string. */
export function binanceWithdrawal(fields: {
  id: string;
  coin: string;
  amount: string;
  fee: string;
  time: number;
  txId?: string;
  status?: number;
}): Record<string, unknown> {
  return {
    id: fields.id,
    amount: fields.amount,
    transactionFee: fields.fee,
    coin: fields.coin,
    status: fields.status ?? 6,
    address: 'addr',
    txId: fields.txId ?? `tx-${fields.id}`,
    applyTime: new Date(fields.time).toISOString().slice(0, 19).replace('T', ' '),
    network: fields.coin,
    transferType: 0,
    info: '',
    confirmNo: 12,
    walletType: 0,
    txKey: '',
  };
}

/** A myTrades row in Binance's shape. */
export function binanceTrade(fields: {
  symbol: string;
  id: number;
  price: string;
  qty: string;
  isBuyer: boolean;
  time: number;
  commission?: string;
  commissionAsset?: string;
}): Record<string, unknown> {
  return {
    symbol: fields.symbol,
    id: fields.id,
    orderId: fields.id * 10,
    orderListId: -1,
    price: fields.price,
    qty: fields.qty,
    quoteQty: (Number(fields.price) * Number(fields.qty)).toFixed(8),
    commission: fields.commission ?? '0.00100000',
    commissionAsset: fields.commissionAsset ?? 'BNB',
    time: fields.time,
    isBuyer: fields.isBuyer,
    isMaker: false,
    isBestMatch: true,
  };
}
