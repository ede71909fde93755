import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noticeOf, plainText } from './notices.domain.ts';

describe('notices from account events', () => {
  it('tells a halt by the user as trading.halted and one by the daily loss as daily_loss', () => {
    assert.equal(noticeOf('trading.halted', { cause: 'user', reason: 'lunch', until: null })?.event, 'trading.halted');
    const loss = noticeOf('trading.halted', {
      cause: 'daily_loss',
      reason: 'loss 12 past 10',
      until: '2026-11-29T00:00:00.000Z',
    });
    assert.equal(loss?.event, 'daily_loss');
    assert.match(plainText(loss!.message), /until 2026-11-29T00:00:00.000Z/i);
  });

  it('tells an order once per final status it reaches, and nothing of the moves between', () => {
    const order = {
      id: 'o1',
      side: 'buy',
      amount: '0.01',
      symbol: 'BTC/USDT',
      mode: 'paper',
      type: 'market',
      exchange: 'binance',
    };
    const filled = noticeOf('order.updated', { ...order, status: 'filled', average_price: '65000' });
    assert.equal(filled?.event, 'order.filled');
    assert.equal(filled?.key, 'order:o1:filled');
    assert.equal(filled?.message.title, 'Order filled: BUY 0.01 BTC/USDT');
    assert.equal(
      noticeOf('order.updated', { ...order, status: 'rejected', reason: 'insufficient balance' })?.event,
      'order.rejected',
    );
    assert.equal(noticeOf('order.updated', { ...order, status: 'canceled' })?.event, 'order.canceled');
    for (const status of ['pending', 'open', 'partially_filled', 'unknown'])
      assert.equal(noticeOf('order.updated', { ...order, status }), undefined);
  });

  it('tells a refused signal, and nothing of events it does not know', () => {
    assert.equal(
      noticeOf('signal.refused', { hook_name: 'trend', status: 422, reason: 'stale' })?.event,
      'signal.refused',
    );
    assert.equal(noticeOf('balance.synced', {}), undefined);
  });
});
