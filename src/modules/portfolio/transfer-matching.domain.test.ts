import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { dec } from './ledger.domain.ts';
import { matchTransfers, TRANSFER_WINDOW_MS, type TransferRecord } from './transfer-matching.domain.ts';

const at = (day: number, hour = 12) => new Date(Date.UTC(2026, 0, day, hour));

describe("transfers between the user's venues", () => {
  const record = (
    id: string,
    type: 'deposit' | 'withdrawal',
    exchange: string,
    amount: string,
    when: Date,
    fields: Partial<TransferRecord> = {},
  ): TransferRecord => ({
    id,
    type,
    exchange,
    asset: 'BTC',
    amount: dec(amount),
    fee: dec(0),
    at: when,
    txid: null,
    ...fields,
  });

  it('pairs a withdrawal with the same amount arriving on another venue within the window', () => {
    const w = record('w1', 'withdrawal', 'binance', '0.005', at(7), { fee: dec('0.0001') });
    const d = record('d1', 'deposit', 'kraken', '0.005', new Date(at(7).getTime() + TRANSFER_WINDOW_MS));
    const late = record('d2', 'deposit', 'kraken', '0.005', new Date(at(7).getTime() + TRANSFER_WINDOW_MS + 1));
    const sameVenue = record('d3', 'deposit', 'binance', '0.005', at(7, 13));
    const result = matchTransfers([late, sameVenue, d, w]);
    assert.deepEqual(
      result.transfers.map((t) => [t.withdrawal.id, t.deposit.id]),
      [['w1', 'd1']],
    );
    assert.deepEqual(
      result.deposits.map((r) => r.id),
      ['d3', 'd2'],
    );
    assert.deepEqual(result.withdrawals, []);
  });

  it('pairs by txid whatever the amounts, and leaves a different amount as outside flows', () => {
    const w = record('w1', 'withdrawal', 'binance', '1', at(1), { txid: 'abc' });
    const d = record('d1', 'deposit', 'kraken', '0.9995', at(2), { txid: 'abc' });
    const w2 = record('w2', 'withdrawal', 'binance', '2', at(3));
    const d2 = record('d2', 'deposit', 'kraken', '1.9', at(3, 14));
    const result = matchTransfers([w, d, w2, d2]);
    assert.deepEqual(
      result.transfers.map((t) => [t.withdrawal.id, t.deposit.id]),
      [['w1', 'd1']],
    );
    assert.deepEqual([result.deposits.map((r) => r.id), result.withdrawals.map((r) => r.id)], [['d2'], ['w2']]);
  });
});
