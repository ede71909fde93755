import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eq, inArray, sql } from 'drizzle-orm';
import { marketIntelEvents } from '../../../src/modules/command-center/command-center.tables.ts';
import { intelEventWire } from '../../../src/modules/command-center/command-center.wire.ts';
import type { CommandCenterModule } from '../../../src/modules/command-center/index.ts';
import { fixedClock } from '../../../src/platform/clock.ts';
import { rowsOf } from '../../../src/platform/db/database.ts';
import { auditLog } from '../../../src/platform/db/schema.ts';
import { assertDetail, assertIssue } from '../../helpers/error-assertions.ts';
import { buildTestApp, signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';

const INTEL = '/api/admin/command-center/intel';
const ACTIVITY = '/api/admin/command-center/agent-activity';
const NOW = '2025-06-10T12:00:00.000Z';
const hoursAgo = (h: number) => new Date(Date.parse(NOW) - h * 3_600_000).toISOString();
const hoursAhead = (h: number) => new Date(Date.parse(NOW) + h * 3_600_000).toISOString();

describe('command center feeds', () => {
  const clock = fixedClock(NOW);
  let t: TestApp;
  let admin: TestUser;
  let member: TestUser;
  let module: CommandCenterModule;

  before(async () => {
    t = await buildTestApp({ clock });
    admin = await signIn(t.app, t.database, { role: 'admin' });
    member = await signIn(t.app, t.database);
    module = t.modules.commandCenter;
  });
  after(async () => {
    await t.close();
  });

  const call = (method: 'GET' | 'POST', url: string, payload?: unknown, user: TestUser | null = admin) =>
    t.app.inject({ method, url, payload: payload as object, headers: user ? user.headers : {} });
  const event = (overrides: Record<string, unknown> = {}) => ({
    event_type: 'whale_transfer',
    asset: 'btc',
    symbol: 'btcusdt',
    direction: 'bullish',
    source: 'onchain',
    strength: 0.8,
    ...overrides,
  });
  const ingest = async (overrides: Record<string, unknown> = {}) => {
    const response = await call('POST', INTEL, event(overrides));
    assert.equal(response.statusCode, 201, response.body);
    return response.json();
  };

  it('every feed route answers 401 without a token and 403 for a non-admin', async () => {
    for (const [method, url, payload] of [
      ['GET', INTEL, undefined],
      ['POST', INTEL, event()],
      ['GET', ACTIVITY, undefined],
      ['POST', ACTIVITY, { agent_id: 'a', kind: 'k' }],
    ] as const) {
      assertDetail(await call(method, url, payload, null), 401, 'Not authenticated');
      assertDetail(await call(method, url, payload, member), 403);
    }
  });

  describe('intel', () => {
    it('records an event with its defaults and audits it', async () => {
      const created = await ingest({
        evidence: { tx: '0xabc', usd: 12_500_000 },
        raw_note: '12.5M BTC to an exchange',
      });
      assert.equal(created.asset, 'BTC');
      assert.equal(created.symbol, 'BTCUSDT');
      assert.equal(created.trust_tier, 'standard');
      assert.equal(created.strength, 0.8);
      assert.deepEqual(created.evidence, { tx: '0xabc', usd: 12_500_000 });
      assert.equal(created.raw_note, '12.5M BTC to an exchange');
      assert.equal(created.detected_at, NOW);
      assert.equal(created.expires_at, null);
      assert.equal(created.created_at, NOW);
      assert.equal(created.outcome_pct, null);
      const activity = (await call('GET', `/api/admin/users/${admin.id}/activity?limit=100`)).json() as {
        action: string;
        actor_id: string;
        target_id: string;
      }[];
      const entries = activity.filter((a) => a.target_id === created.id);
      assert.equal(entries.length, 1);
      assert.equal(entries[0]!.action, 'command_center.intel.create');
      assert.equal(entries[0]!.actor_id, admin.id);
    });

    it('validates every field of an event at once', async () => {
      const response = await call('POST', INTEL, {
        event_type: '',
        symbol: 'BTCUSDT',
        direction: 'sideways',
        source: 'x',
        trust_tier: 'gold',
        strength: 1.5,
        evidence: [1, 2],
        detected_at: 'yesterday',
      });
      assertIssue(response, ['body', 'event_type'], 'string_too_short');
      assertIssue(response, ['body', 'asset'], 'missing');
      const direction = assertIssue(response, ['body', 'direction'], 'enum');
      assert.equal(direction.msg, "Input should be 'bullish', 'long', 'up', 'bearish', 'short' or 'down'");
      assertIssue(response, ['body', 'trust_tier'], 'enum');
      assert.deepEqual(assertIssue(response, ['body', 'strength'], 'less_than_equal').ctx, { le: 1 });
      assertIssue(response, ['body', 'evidence'], 'dict_type');
      assertIssue(response, ['body', 'detected_at'], 'datetime_from_date_parsing');
      assert.deepEqual(
        assertIssue(await call('POST', INTEL, event({ strength: -0.1 })), ['body', 'strength'], 'greater_than_equal')
          .ctx,
        { ge: 0 },
      );
    });

    it('refuses an expiry that is not after detection', async () => {
      const issue = assertIssue(
        await call('POST', INTEL, event({ detected_at: hoursAgo(1), expires_at: hoursAgo(2) })),
        ['body', 'expires_at'],
        'value_error',
      );
      assert.equal(issue.msg, 'Value error, expires_at must be later than detected_at');
    });

    it('filters quarantined and expired events, newest first, with a summary per source', async () => {
      const post = async (overrides: Record<string, unknown>) => (await ingest(overrides)).id as string;
      const get = async (query = '') => {
        const body = (await call('GET', `${INTEL}${query}`)).json();
        const mine = body.events.map((e: { id: string }) => e.id).filter((id: string) => ids.includes(id));
        return { ...body, mine };
      };
      // horizon passed 6 h ago
      const old = await post({ source: 'f-news', direction: 'bullish', detected_at: hoursAgo(30) });
      const expired = await post({
        source: 'f-news',
        direction: 'bearish',
        detected_at: hoursAgo(5),
        expires_at: hoursAgo(1),
      });
      const live = await post({
        source: 'f-news',
        direction: 'short',
        detected_at: hoursAgo(2),
        expires_at: hoursAhead(2),
      });
      // active for 23 h more
      const recent = await post({ source: 'f-chain', direction: 'up', detected_at: hoursAgo(1) });
      const shady = await post({
        source: 'f-rumours',
        direction: 'long',
        trust_tier: 'quarantined',
        detected_at: hoursAgo(0.5),
      });
      // Detected long before the default horizon, but its own horizon is still ahead: active.
      const lasting = await post({
        source: 'f-chain',
        direction: 'down',
        detected_at: hoursAgo(48),
        expires_at: hoursAhead(3),
      });
      const ids = [old, expired, live, recent, shady, lasting];

      await module.intel.recordOutcome(old, 4.2); // bullish and up: correct
      await module.intel.recordOutcome(expired, 1.0); // bearish but up: wrong
      await module.intel.recordOutcome(live, -0.5); // short and down: correct

      const all = await get('?limit=500');
      assert.deepEqual(all.mine, [shady, recent, live, expired, old, lasting]);
      assert.deepEqual(all.summary['f-news'], { total: 3, scored: 3, correct: 2, precision: 2 / 3 });
      assert.deepEqual(all.summary['f-chain'], { total: 2, scored: 0, correct: 0, precision: 0 });
      assert.deepEqual(all.summary['f-rumours'], { total: 1, scored: 0, correct: 0, precision: 0 });
      assert.equal(all.events.find((e: { id: string }) => e.id === old).outcome_pct, 4.2);

      const trusted = await get('?include_quarantined=false&limit=500');
      assert.deepEqual(trusted.mine, [recent, live, expired, old, lasting]);
      assert.ok(!('f-rumours' in trusted.summary));
      assert.ok(trusted.events.every((e: { trust_tier: string }) => e.trust_tier !== 'quarantined'));

      const active = await get('?active=true&include_quarantined=false&limit=500');
      assert.deepEqual(active.mine, [recent, live, lasting]);
      assert.deepEqual(active.summary['f-news'], { total: 1, scored: 1, correct: 1, precision: 1 });
      assert.deepEqual(active.summary['f-chain'], { total: 2, scored: 0, correct: 0, precision: 0 });

      const limited = (await call('GET', `${INTEL}?limit=2`)).json();
      assert.equal(limited.events.length, 2);
      const times = (all.events as { detected_at: string }[]).map((e) => e.detected_at);
      assert.deepEqual(times, [...times].sort().reverse(), 'the newest detections come first');
      assert.equal(limited.summary['f-news'].total, 3, 'the summary covers every matching event, not just the page');
    });

    it('lists each event exactly as its own answer writes it, as it is recorded and as it is scored', async () => {
      const quoted = await ingest({
        source: 'w-source "q"',
        asset: 'ünï',
        raw_note: 'says "buy" </script>\t\u001f\u2028 🚀\n\\',
        strength: 0.123456789012345,
        evidence: { legs: [{ side: 'sell', price: '70123.45', filled: null }], nested: { deep: [1, 2.5, -3e-7] } },
        detected_at: hoursAgo(0.2),
        expires_at: hoursAhead(5),
      });
      const scored = await ingest({ source: 'w-source', strength: 1, detected_at: hoursAgo(0.3) });
      const failed = await ingest({ source: 'w-source', strength: 0, detected_at: hoursAgo(0.4) });
      await module.intel.recordOutcome(scored.id, -0.000123);
      await module.intel.recordScoringFailures([{ id: failed.id, unscorable: true, reason: 'no "candle" at ¤' }]);

      const listing = await call('GET', `${INTEL}?limit=500`);
      assert.equal(listing.statusCode, 200);
      // Written compactly, as every other answer is (a stored `evidence` keeps its own spacing).
      assert.match(listing.body, /^\{"events":\[\{"id":"[^"]+","event_type":/);
      const listed = (id: string) => listing.json().events.find((e: { id: string }) => e.id === id);
      // As recorded: the POST answer, field by field and in key order.
      assert.deepEqual(listed(quoted.id), quoted);
      assert.deepEqual(Object.keys(listed(quoted.id)), Object.keys(quoted));
      // As changed by scoring: what the event's own mapper writes of the stored row now.
      const stored = await t.database.db
        .select()
        .from(marketIntelEvents)
        .where(inArray(marketIntelEvents.id, [scored.id, failed.id]));
      for (const row of stored) {
        const expected = intelEventWire(row);
        assert.deepEqual(listed(row.id), expected);
        assert.deepEqual(Object.keys(listed(row.id)), Object.keys(expected));
      }
      assert.equal(listed(scored.id).outcome_pct, -0.000123);
      assert.equal(listed(scored.id).scoring_error, null);
      assert.deepEqual([listed(failed.id).scoring_error, listed(failed.id).scoring_attempts], ['no "candle" at ¤', 1]);
    });

    it('lists rows written by any path as their fields say: a bulk import, an update, triggers off', async () => {
      const exec = async (query: ReturnType<typeof sql>) => rowsOf<{ id: string }>(await t.database.db.execute(query));
      // A bulk import that writes the kept text too, wrongly: the database writes it again from the row.
      const [imported] = await exec(sql`INSERT INTO market_intel_events
          (event_type, asset, symbol, direction, source, strength, evidence, detected_at, created_at, wire)
        VALUES ('listing', 'SOL', 'SOLUSDT', 'up', 'i-import', 0.5, '{"n": 1}', ${hoursAgo(0.1)}, ${hoursAgo(0.1)},
          '{"forged":true}') RETURNING id`);
      await exec(sql`UPDATE market_intel_events SET outcome_pct = 2.5, scoring_error = 'stale'
        WHERE id = ${imported!.id}`);
      // A restore with triggers off leaves no text: the feed writes the event itself.
      await exec(sql`ALTER TABLE market_intel_events DISABLE TRIGGER market_intel_wire_on_write`);
      let restored: { id: string } | undefined;
      try {
        [restored] = await exec(sql`INSERT INTO market_intel_events
            (event_type, asset, symbol, direction, source, strength, detected_at, created_at, scoring_error)
          VALUES ('news', 'XRP', 'XRPUSDT', 'down', 'i-restore', 0.25, ${hoursAgo(0.05)}, ${hoursAgo(0.05)}, 'kept')
          RETURNING id`);
      } finally {
        await exec(sql`ALTER TABLE market_intel_events ENABLE TRIGGER market_intel_wire_on_write`);
      }
      try {
        const events = (await call('GET', `${INTEL}?limit=500`)).json().events;
        const common = { trust_tier: 'standard', raw_note: '', expires_at: null };
        assert.deepEqual(
          events.filter((e: { source: string }) => ['i-import', 'i-restore'].includes(e.source)),
          [
            {
              id: restored!.id,
              event_type: 'news',
              asset: 'XRP',
              symbol: 'XRPUSDT',
              direction: 'down',
              source: 'i-restore',
              ...common,
              strength: 0.25,
              evidence: {},
              detected_at: hoursAgo(0.05),
              expires_at: null,
              created_at: hoursAgo(0.05),
              outcome_pct: null,
              scoring_error: 'kept',
              scoring_attempts: 0,
            },
            {
              id: imported!.id,
              event_type: 'listing',
              asset: 'SOL',
              symbol: 'SOLUSDT',
              direction: 'up',
              source: 'i-import',
              ...common,
              strength: 0.5,
              evidence: { n: 1 },
              detected_at: hoursAgo(0.1),
              expires_at: null,
              created_at: hoursAgo(0.1),
              outcome_pct: 2.5,
              scoring_error: null,
              scoring_attempts: 0,
            },
          ],
        );
      } finally {
        await exec(sql`DELETE FROM market_intel_events WHERE source IN ('i-import', 'i-restore')`);
      }
    });

    it('bounds the query: limit 1..500 and booleans', async () => {
      assert.deepEqual(
        assertIssue(await call('GET', `${INTEL}?limit=0`), ['query', 'limit'], 'greater_than_equal').ctx,
        { ge: 1 },
      );
      const high = assertIssue(await call('GET', `${INTEL}?limit=501`), ['query', 'limit'], 'less_than_equal');
      assert.equal(high.input, '501');
      assertIssue(await call('GET', `${INTEL}?limit=ten`), ['query', 'limit'], 'int_parsing');
      assertIssue(
        await call('GET', `${INTEL}?include_quarantined=maybe`),
        ['query', 'include_quarantined'],
        'bool_parsing',
      );
      assertIssue(await call('GET', `${INTEL}?active=2`), ['query', 'active'], 'bool_parsing');
      assert.equal((await call('GET', `${INTEL}?limit=500&active=false&include_quarantined=false`)).statusCode, 200);
    });

    it('hands matured, unscored events to the scoring job, and takes their outcome', async () => {
      const post = async (overrides: Record<string, unknown>) =>
        (await ingest({ source: 'm-source', ...overrides })).id as string;
      const matured = await post({ detected_at: hoursAgo(25), direction: 'short', symbol: 'ethusdt' });
      const expiredEarly = await post({ detected_at: hoursAgo(3), expires_at: hoursAgo(2) });
      const pending = await post({ detected_at: hoursAgo(23) }); // 1 h left
      const far = await post({ detected_at: hoursAgo(48), expires_at: hoursAhead(1) });
      const ids = [matured, expiredEarly, pending, far];
      const due = async (at: string) =>
        (await module.intel.listMaturedUnscored(new Date(at), 500)).filter((d) => ids.includes(d.id));

      const now = await due(NOW);
      assert.deepEqual(
        now.map((d) => d.id),
        [expiredEarly, matured],
        'oldest horizon first',
      );
      assert.deepEqual(now[1], {
        id: matured,
        symbol: 'ETHUSDT',
        direction: 'short',
        detectedAt: new Date(hoursAgo(25)),
        horizonAt: new Date(hoursAgo(1)),
      });
      assert.equal(now[0]!.horizonAt.toISOString(), hoursAgo(2));
      assert.equal((await module.intel.listMaturedUnscored(new Date(NOW), 1)).length, 1);

      await module.intel.recordOutcome(matured, -1.25);
      assert.deepEqual(
        (await due(NOW)).map((d) => d.id),
        [expiredEarly],
      );
      assert.deepEqual((await due(hoursAhead(2))).map((d) => d.id).sort(), [expiredEarly, pending, far].sort());
      await assert.rejects(module.intel.recordOutcome('00000000-0000-4000-8000-000000000000', 1), { status: 404 });
      await assert.rejects(module.intel.recordOutcome('garbage', 1), { status: 404 });
      // The scoring job's entry concerns no user, so no activity shows it: the event's whole
      // trail is read from the audit log.
      const audits = await t.database.db.select().from(auditLog).where(eq(auditLog.targetId, matured));
      assert.deepEqual(audits.map((a) => a.action).sort(), [
        'command_center.intel.create',
        'command_center.intel.score',
      ]);
    });
  });

  describe('agent activity', () => {
    it('records events and lists those within the window, newest first', async () => {
      const record = async (payload: Record<string, unknown>) => {
        const response = await call('POST', ACTIVITY, payload);
        assert.equal(response.statusCode, 201, response.body);
        return response.json();
      };
      clock.set(hoursAgo(30));
      const ancient = await record({ agent_id: 'scout', agent_name: 'Scout v1', kind: 'scan' });
      clock.set(hoursAgo(3));
      const earlier = await record({
        agent_id: 'scout',
        agent_name: 'Scout v2',
        kind: 'trade_proposal',
        rationale: 'Momentum',
        action: { side: 'buy', size: 0.1 },
      });
      clock.set(hoursAgo(2));
      const quoted = await record({
        agent_id: 'scout "two"',
        agent_name: 'Scout\n\\ ünï 🚀',
        kind: 'note',
        rationale: 'says "buy" </script>\t\u001f\u2028',
        action: { legs: [{ side: 'sell', price: '70123.45', filled: null }], nested: { deep: [1, 2.5, -3e-7] } },
      });
      clock.set(hoursAgo(1));
      const later = await record({ agent_id: 'builder', kind: 'task_update' });
      clock.set(NOW);

      assert.equal(earlier.agent_name, 'Scout v2');
      assert.deepEqual(earlier.action, { side: 'buy', size: 0.1 });
      assert.equal(earlier.rationale, 'Momentum');
      assert.equal(later.agent_name, null);
      assert.deepEqual(later.action, {});
      assert.equal(later.created_at, hoursAgo(1));

      const listing = await call('GET', ACTIVITY);
      // Written compactly, as every other answer is (a stored `action` keeps its own spacing).
      assert.match(listing.body, /^\{"events":\[\{"id":"[^"]+","agent_id":/);
      const day = listing.json();
      const ids = day.events.map((e: { id: string }) => e.id);
      assert.ok(ids.indexOf(later.id) < ids.indexOf(quoted.id));
      assert.ok(ids.indexOf(quoted.id) < ids.indexOf(earlier.id));
      assert.ok(!ids.includes(ancient.id));
      // The feed lists each event exactly as it was answered when recorded: fields, order, values.
      for (const recorded of [earlier, quoted, later]) {
        const listed = day.events.find((e: { id: string }) => e.id === recorded.id);
        assert.deepEqual(listed, recorded);
        assert.deepEqual(Object.keys(listed), Object.keys(recorded));
      }
      assert.deepEqual(
        (await call('GET', `${ACTIVITY}?hours=2`)).json().events.map((e: { id: string }) => e.id),
        [later.id],
      );
      assert.ok(
        (await call('GET', `${ACTIVITY}?hours=48`)).json().events.some((e: { id: string }) => e.id === ancient.id),
      );
      assert.deepEqual(
        (await call('GET', `${ACTIVITY}?hours=48&agent_id=scout`)).json().events.map((e: { id: string }) => e.id),
        [earlier.id, ancient.id],
      );

      const summaries = await module.agents.summaries(new Date(NOW));
      const scout = summaries.find((s) => s.agentId === 'scout')!;
      assert.deepEqual(scout, {
        agentId: 'scout',
        agentName: 'Scout v2',
        lastSeenAt: new Date(hoursAgo(3)),
        actions24h: 1,
        openTasks: 0,
      });
    });

    it('lists rows written by any path as their fields say: a bulk import, an update, triggers off', async () => {
      const exec = async (query: ReturnType<typeof sql>) => rowsOf<{ id: string }>(await t.database.db.execute(query));
      // A bulk import that writes the kept text too, wrongly: the database writes it again from the row.
      const [imported] =
        await exec(sql`INSERT INTO agent_activity_events (agent_id, kind, rationale, action, created_at, wire)
        VALUES ('importer', 'scan', 'bulk', '{"n": 1}', ${hoursAgo(1.5)}, '{"forged":true}') RETURNING id`);
      await exec(sql`UPDATE agent_activity_events SET agent_name = 'Imported' WHERE agent_id = 'importer'`);
      // A restore with triggers off leaves no text: the feed writes the event itself.
      await exec(sql`ALTER TABLE agent_activity_events DISABLE TRIGGER agent_activity_wire_on_write`);
      let restored: { id: string } | undefined;
      try {
        [restored] = await exec(sql`INSERT INTO agent_activity_events (agent_id, kind, created_at)
          VALUES ('restorer', 'note', ${hoursAgo(1.25)}) RETURNING id`);
      } finally {
        await exec(sql`ALTER TABLE agent_activity_events ENABLE TRIGGER agent_activity_wire_on_write`);
      }
      try {
        const events = (await call('GET', `${ACTIVITY}?hours=2`)).json().events;
        assert.deepEqual(
          events.filter((e: { agent_id: string }) => ['importer', 'restorer'].includes(e.agent_id)),
          [
            {
              id: restored!.id,
              agent_id: 'restorer',
              agent_name: null,
              kind: 'note',
              rationale: '',
              action: {},
              created_at: hoursAgo(1.25),
            },
            {
              id: imported!.id,
              agent_id: 'importer',
              agent_name: 'Imported',
              kind: 'scan',
              rationale: 'bulk',
              action: { n: 1 },
              created_at: hoursAgo(1.5),
            },
          ],
        );
      } finally {
        await exec(sql`DELETE FROM agent_activity_events WHERE agent_id IN ('importer', 'restorer')`);
      }
    });

    it('bounds hours to 1..720 and validates the event', async () => {
      assert.deepEqual(
        assertIssue(await call('GET', `${ACTIVITY}?hours=0`), ['query', 'hours'], 'greater_than_equal').ctx,
        { ge: 1 },
      );
      assert.deepEqual(
        assertIssue(await call('GET', `${ACTIVITY}?hours=721`), ['query', 'hours'], 'less_than_equal').ctx,
        { le: 720 },
      );
      assert.equal((await call('GET', `${ACTIVITY}?hours=720`)).statusCode, 200);
      const response = await call('POST', ACTIVITY, { agent_id: '', action: 'buy', rationale: 5 });
      assertIssue(response, ['body', 'agent_id'], 'string_too_short');
      assertIssue(response, ['body', 'kind'], 'missing');
      assertIssue(response, ['body', 'action'], 'dict_type');
      assertIssue(response, ['body', 'rationale'], 'string_type');
    });

    it('summarises every agent seen in activity or on agent-filed tasks', async () => {
      const post = (url: string, payload: object) => call('POST', url, payload);
      await post(ACTIVITY, { agent_id: 's-trader', agent_name: 'Trader', kind: 'order' });
      await post(ACTIVITY, { agent_id: 's-trader', kind: 'order' });
      const tasks = '/api/admin/command-center/tasks';
      await post(tasks, { title: 'Fix feed', source_type: 'agent', source_id: 's-watcher', assignee: 's-fixer' });
      await post(tasks, { title: 'Review PR', assignee: 's-trader' });
      const closed = (await post(tasks, { title: 'Old work', assignee: 's-fixer' })).json();
      await t.app.inject({
        method: 'PATCH',
        url: `${tasks}/${closed.id}`,
        payload: { status: 'done' },
        headers: admin.headers,
      });
      await post(tasks, { title: 'Human work', assignee: 's-alice' });

      const mine = (list: Awaited<ReturnType<typeof module.agents.summaries>>) =>
        list.filter((s) => s.agentId.startsWith('s-'));
      assert.deepEqual(mine(await module.agents.summaries(new Date(NOW))), [
        { agentId: 's-trader', agentName: 'Trader', lastSeenAt: new Date(NOW), actions24h: 2, openTasks: 1 },
        { agentId: 's-fixer', agentName: null, lastSeenAt: null, actions24h: 0, openTasks: 1 },
        { agentId: 's-watcher', agentName: null, lastSeenAt: null, actions24h: 0, openTasks: 0 },
      ]);
      // A day later the actions fall out of the 24-hour count but the agent stays known.
      const later = mine(await module.agents.summaries(new Date(hoursAhead(25))));
      assert.equal(later[0]!.actions24h, 0);
      assert.equal(later[0]!.lastSeenAt?.toISOString(), NOW);
    });
  });
});
