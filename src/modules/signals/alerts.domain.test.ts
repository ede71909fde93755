import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { alertKeyOf, fieldsOf, isStale, readAlert } from './alerts.domain.ts';

const read = (body: string) => {
  const fields = fieldsOf(body);
  assert.ok(fields, 'a readable body');
  return readAlert(fields);
};

describe('alert bodies', () => {
  it('reads the JSON form: side or action, symbol either way, sizes, defaults', () => {
    const json = read(
      '{"secret":"s","symbol":"BTC/USDT","side":"BUY","amount_quote":25,"id":"Long","time":"2026-11-28T22:00:00Z"}',
    );
    assert.ok('alert' in json);
    assert.deepEqual(json.alert, {
      secret: 's',
      symbol: 'BTC/USDT',
      side: 'buy',
      type: 'market',
      size: { amountQuote: '25' },
      price: null,
      id: 'Long',
      time: new Date('2026-11-28T22:00:00Z'),
    });
  });

  it("reads OctoBot's KEY=value lines, VOLUME as an amount or a percent", () => {
    const lines = read('SECRET=s\r\nSYMBOL=ETHUSDT\nSIGNAL=sell\nORDER_TYPE=LIMIT\nVOLUME=12.5%\nPRICE=3000\nTAG=x');
    assert.ok('alert' in lines);
    assert.deepEqual(lines.alert.size, { percent: '12.5' });
    assert.equal(lines.alert.type, 'limit');
    assert.equal(lines.alert.price, '3000');
    const amount = read('SECRET=s\nSYMBOL=ETHUSDT\nSIGNAL=BUY\nVOLUME=0.5');
    assert.ok('alert' in amount);
    assert.deepEqual(amount.alert.size, { amount: '0.5' });
  });

  it('is neither form: free text, a JSON list, broken JSON, an empty body', () => {
    for (const body of ['buy now', '[1]', '{"secret":', '', '   ', 'SECRET=s\nbuy'])
      assert.equal(fieldsOf(body), undefined, body);
  });

  it('lists every problem: two sizes, a percent over 100, a market price, a bad time', () => {
    const out = read(
      '{"secret":"s","symbol":"BTCUSDT","action":"buy","amount":"1","percent":"5","price":"10","time":"soon"}',
    );
    assert.ok('issues' in out);
    assert.deepEqual(
      out.issues.map((issue) => issue.loc.join('.')),
      ['body.percent', 'body.price', 'body.time'],
    );
    const over = read('{"symbol":"BTCUSDT","action":"buy","percent":"150"}');
    assert.ok('issues' in over);
    assert.equal(over.issues[0]!.type, 'less_than_equal');
  });

  it('refuses what no column can hold in any field it reads, once a field, and not in fields it ignores', () => {
    const out = read(
      '{"secret":"s","symbol":"BTC\\u0000USDT","action":"buy","amount":1e400,"id":"a\\u0000b","tag":"x\\u0000"}',
    );
    assert.ok('issues' in out);
    assert.deepEqual(
      out.issues.map((issue) => [issue.loc.join('.'), issue.type]),
      [
        ['body.symbol', 'value_error'],
        ['body.amount', 'finite_number'],
        ['body.id', 'value_error'],
      ],
    );
    const lines = read('SECRET=s\nSYMBOL=ETHUSDT\nSIGNAL=BUY\nVOLUME=1\u0000%\nID=x\u0000y');
    assert.ok('issues' in lines);
    assert.deepEqual(
      lines.issues.map((issue) => issue.loc.join('.')),
      ['body.VOLUME', 'body.id'],
    );
  });

  it('is stale beyond max lag either way; without a time it is not', () => {
    const now = new Date('2026-11-28T22:00:00Z');
    assert.equal(isStale(new Date('2026-11-28T21:58:59Z'), now, 60), true);
    assert.equal(isStale(new Date('2026-11-28T21:59:00Z'), now, 60), false);
    assert.equal(isStale(new Date('2026-11-28T22:01:01Z'), now, 60), true);
    assert.equal(isStale(null, now, 60), false);
  });

  it('names one firing by id and time: the same strategy id at another time is another alert', () => {
    const at = new Date('2026-11-28T22:00:00Z');
    assert.equal(alertKeyOf({ id: 'Long', time: at }), 'Long@2026-11-28T22:00:00.000Z');
    assert.notEqual(
      alertKeyOf({ id: 'Long', time: at }),
      alertKeyOf({ id: 'Long', time: new Date(at.getTime() + 60_000) }),
    );
    assert.equal(alertKeyOf({ id: 'Long', time: null }), 'Long');
    assert.equal(alertKeyOf({ id: null, time: at }), null);
  });
});
