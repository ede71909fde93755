// GET /api/paper/account and POST /api/paper/account/reset: the start balances, equity at the Binance
// fake's last prices, the reset (which cancels resting orders), validation, and who may call them.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { sql } from 'drizzle-orm';
import { loadConfig } from '../../../src/config/config.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { signIn, type TestUser } from '../../helpers/test-app.ts';
import type { MarketHarness } from '../market/market-fixtures.ts';
import { startPaperMarket } from './paper-fixtures.ts';

describe('paper account', () => {
  let m: MarketHarness;
  let user: TestUser;
  const get = (headers: Record<string, string> = user.headers) =>
    m.app.inject({ method: 'GET', url: '/api/paper/account', headers });
  const reset = (payload: unknown, headers: Record<string, string> = user.headers) =>
    m.app.inject({ method: 'POST', url: '/api/paper/account/reset', headers, payload: payload as object });
  const token = async (scopes: string[]) => {
    const r = await m.app.inject({
      method: 'POST',
      url: '/api/auth/tokens',
      headers: user.headers,
      payload: { name: `bot ${scopes.join(' ')}`, scopes },
    });
    assert.equal(r.statusCode, 201, r.body);
    return { authorization: `Bearer ${r.json<{ token: string }>().token}` };
  };

  before(async () => {
    m = await startPaperMarket({ PAPER_START_BALANCES: '{"USDT": "2500.5", "BTC": "0.1"}' });
    user = await signIn(m.app, m.database);
  });
  after(() => m?.stop());

  it('opens with PAPER_START_BALANCES and values them at last prices', async () => {
    const r = await get();
    assert.equal(r.statusCode, 200, r.body);
    // 0.1 BTC at the fake's 65000 plus 2500.5 USDT.
    assert.deepEqual(r.json(), {
      quote: 'USDT',
      balances: [
        { asset: 'BTC', free: '0.1', locked: '0' },
        { asset: 'USDT', free: '2500.5', locked: '0' },
      ],
      equity: '9000.5',
      unpriced: [],
      source: 'binance',
    });
  });

  it('opens an account with its start balances or not at all: a refused balance write leaves no account', async () => {
    const carol = await signIn(m.app, m.database);
    // The database refuses carol's balance rows: the account's first read must not leave her account open
    // without them, or every later read would find it opened and give it none.
    const db = m.database.db;
    await db.execute(
      sql.raw(
        `ALTER TABLE paper_balances ADD CONSTRAINT paper_balances_refused CHECK (user_id <> '${carol.id}') NOT VALID`,
      ),
    );
    try {
      assertDetail(await get(carol.headers), 500);
    } finally {
      await db.execute(sql.raw('ALTER TABLE paper_balances DROP CONSTRAINT paper_balances_refused'));
    }
    const opened = await m.database.rows(sql`SELECT 1 FROM paper_accounts WHERE user_id = ${carol.id}::uuid`);
    assert.equal(opened.length, 0, 'no account without its balances');
    const r = await get(carol.headers);
    assert.equal(r.statusCode, 200, r.body);
    assert.deepEqual(r.json<{ balances: unknown }>().balances, [
      { asset: 'BTC', free: '0.1', locked: '0' },
      { asset: 'USDT', free: '2500.5', locked: '0' },
    ]);
  });

  it('a reset cancels resting orders, sets the balances exactly and is audited', async () => {
    const placed = await m.modules.paper.venue.submit({
      userId: user.id,
      exchange: 'binance',
      symbol: 'ETH/USDT',
      clientOrderId: 'rest-1',
      side: 'buy',
      type: 'limit',
      timeInForce: 'GTC',
      amount: '0.5',
      price: '3000',
      credentialId: null,
    });
    assert.equal(placed.kind === 'accepted' && placed.state.status, 'open', JSON.stringify(placed));
    const changes: unknown[] = [];
    const stop = m.modules.paper.onOrderChanged((change) => changes.push(change));

    const r = await reset({ balances: { USDT: '1000', ETH: '2', XYZ: '5' } });
    stop();
    assert.equal(r.statusCode, 200, r.body);
    // 2 ETH at 3200 + 1000; XYZ has no pair with USDT.
    assert.deepEqual(r.json(), {
      quote: 'USDT',
      balances: [
        { asset: 'ETH', free: '2', locked: '0' },
        { asset: 'USDT', free: '1000', locked: '0' },
        { asset: 'XYZ', free: '5', locked: '0' },
      ],
      equity: '7400',
      unpriced: ['XYZ'],
      source: 'binance',
    });
    const looked = await m.modules.paper.venue.lookup({
      userId: user.id,
      exchange: 'binance',
      symbol: 'ETH/USDT',
      clientOrderId: 'rest-1',
      side: 'buy',
      type: 'limit',
      timeInForce: 'GTC',
      amount: '0.5',
      price: '3000',
      credentialId: null,
    });
    assert.equal(looked.kind === 'found' && looked.state.status, 'canceled');
    assert.deepEqual(changes, [{ userId: user.id, clientOrderId: 'rest-1' }], 'the orders module hears of it');
    const audited = await m.database.rows<{ action: string; actor_id: string }>(
      sql`SELECT action, actor_id FROM audit_log WHERE action = 'paper.account.reset'`,
    );
    assert.deepEqual(audited, [{ action: 'paper.account.reset', actor_id: user.id }]);
  });

  it('refuses balances that are not asset codes to decimal strings', async () => {
    assertIssue(await reset({ balances: { USDT: '-5' } }), ['body', 'balances', 'USDT'], 'string_pattern_mismatch');
    assertIssue(await reset({ balances: { USDT: 10 } }), ['body', 'balances', 'USDT'], 'string_type');
    assert.equal((await reset({ balances: { usdt: '1' } })).statusCode, 422);
    assert.equal((await reset({ balances: {} })).statusCode, 422);
    assert.equal((await reset({})).statusCode, 422);
  });

  it('needs a signed-in user, or a token with the trade scopes', async () => {
    assert.equal((await get({})).statusCode, 401);
    assert.equal((await reset({ balances: { USDT: '1' } }, {})).statusCode, 401);
    const reader = await token(['trade:read']);
    assert.equal((await get(reader)).statusCode, 200);
    assert.equal((await reset({ balances: { USDT: '1' } }, reader)).statusCode, 403);
    assert.equal((await get(await token(['account:read']))).statusCode, 403);
    assert.equal((await reset({ balances: { USDT: '1' } }, await token(['trade:write']))).statusCode, 200);
  });

  it('a start balance that is not a JSON object of decimal strings stops the start, naming the variable', () => {
    for (const bad of ['{"USDT": 10000}', '[1]', 'usdt', '{"usdt": "1"}', '{}']) {
      assert.throws(
        () => loadConfig({ PAPER_START_BALANCES: bad }),
        (error: Error) => /PAPER_START_BALANCES must be a JSON object/.test(error.message),
        bad,
      );
    }
  });
});
