import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { and, eq } from 'drizzle-orm';
import { fixedClock } from '../../../src/platform/clock.ts';
import { auditLog, outbox } from '../../../src/platform/db/schema.ts';
import { MAX_LOCAL_LABELS } from '../../../src/modules/tracker/tracker.domain.ts';
import { signIn, type TestApp, type TestUser } from '../../helpers/test-app.ts';
import { type LocalTracker, startLocalTracker, TEAM } from './tracker-local-fixtures.ts';

// Issues filed by agents (deduplicated, announced, with their labels bounded), and who may call the
// tracker. Creating, reading, changing and listing issues are in tracker-local-issues.test.ts.
describe('tracker on the local backend', () => {
  let t: TestApp;
  let admin: TestUser;
  let call: LocalTracker['call'];
  let create: LocalTracker['create'];
  let fileForAgent: LocalTracker['fileForAgent'];
  before(async () => {
    ({ t, admin, call, create, fileForAgent } = await startLocalTracker(fixedClock(new Date())));
  });
  after(async () => {
    await t.close();
  });

  describe('agent-filed issues', () => {
    it(
      'files with priority 2 in the default team, creates ' + 'labels, records the agent and announces it once',
      async () => {
        const response = await fileForAgent({
          title: 'Nightly backtest failed',
          description: 'exit 1',
          agent_type: 'ci',
          label_names: ['flaky', 'Flaky', 'backtest'],
        });
        assert.equal(response.statusCode, 201, response.body);
        const issue = response.json();
        assert.equal(issue.deduplicated, false);
        assert.equal(issue.priority, 2);
        assert.equal(issue.priorityLabel, 'High');
        assert.equal(issue.team.id, TEAM);
        assert.equal(issue.agentId, 'ci-bot');
        assert.equal(issue.state.type, 'backlog');
        assert.deepEqual(issue.labels.map((l: { name: string }) => l.name).sort(), ['agent:ci', 'backtest', 'flaky']);

        // What is checked is the queueing (once per issue, by its dedupe key): the outbox is read, not the chat.
        const messages = await t.database.db
          .select()
          .from(outbox)
          .where(eq(outbox.dedupeKey, `tracker.agent-issue:${issue.id}`));
        assert.equal(messages.length, 1);
        assert.equal(messages[0]!.kind, 'chat.post');
        assert.match(String(messages[0]!.payload.title), new RegExp(`${issue.identifier} filed by agent ci-bot`));
        // An agent's filing concerns no user: no activity shows its audit entry.
        const [row] = await t.database.db
          .select()
          .from(auditLog)
          .where(and(eq(auditLog.action, 'tracker.issue.agent_file'), eq(auditLog.targetId, issue.id)));
        assert.equal(row!.details.agentId, 'ci-bot');
      },
    );

    it(
      'answers the open issue of the same agent and title ' + 'instead of a duplicate, even for concurrent retries',
      async () => {
        const title = `Exchange timeout ${randomUUID().slice(0, 6)}`;
        const answers = await Promise.all(Array.from({ length: 5 }, () => fileForAgent({ title })));
        const created = answers.filter((a) => a.statusCode === 201);
        assert.equal(created.length, 1);
        const id = created[0]!.json().id;
        for (const answer of answers.filter((a) => a.statusCode !== 201)) {
          assert.equal(answer.statusCode, 200);
          assert.equal(answer.json().deduplicated, true);
          assert.equal(answer.json().id, id);
        }
        // Another agent, or the same agent once the issue is done, gets a new issue.
        const other = await fileForAgent({ title, agent_id: 'other-bot' });
        assert.equal(other.statusCode, 201);
        assert.notEqual(other.json().id, id);
        await call('PATCH', `/api/v1/tracker/issues/${id}`, { state: 'Done' });
        const again = await fileForAgent({ title });
        assert.equal(again.statusCode, 201);
        assert.notEqual(again.json().id, id);
        // One message queued per issue created, none per answered retry: counted in the outbox,
        // where no delivery timing blurs it.
        const messages = await t.database.db.select().from(outbox).where(eq(outbox.kind, 'chat.post'));
        assert.equal(messages.filter((m) => String(m.payload.text) === title).length, 3);
      },
    );

    it('defaults agent_type to custom and validates its fields', async () => {
      const response = await fileForAgent({ title: 'Custom agent issue' });
      assert.equal(response.statusCode, 201);
      assert.deepEqual(
        response.json().labels.map((l: { name: string }) => l.name),
        ['agent:custom'],
      );
      const bad = await call('POST', '/api/v1/tracker/issues/agent', { title: '', priority: 7, label_names: [''] });
      assert.equal(bad.statusCode, 422);
      assert.deepEqual(
        bad.json().detail.map((d: { loc: (string | number)[]; type: string }) => [d.loc, d.type]),
        [
          [['body', 'agent_id'], 'missing'],
          [['body', 'title'], 'string_too_short'],
          [['body', 'priority'], 'less_than_equal'],
          [['body', 'label_names', 0], 'string_too_short'],
        ],
      );
    });

    it(
      'refuses a lone surrogate in any text, on both ' + 'filing routes, as Pydantic does, and stores nothing',
      async () => {
        const lone = 'x\ud800y';
        const unicode = (loc: (string | number)[]) => ({
          type: 'string_unicode',
          loc,
          msg: 'Input should be a valid string, unable to parse raw data as a unicode string',
          input: lone,
        });
        const countRows = async () => ({
          audit: (await t.database.db.select().from(auditLog)).length,
          outbox: (await t.database.db.select().from(outbox)).length,
        });
        const before = await countRows();
        const attempts: [string, Record<string, unknown>, (string | number)[]][] = [
          [
            '/api/v1/tracker/issues/agent',
            { agent_id: 'ci-bot', title: 'Surrogate in the type', agent_type: lone },
            ['body', 'agent_type'],
          ],
          [
            '/api/v1/tracker/issues/agent',
            { agent_id: 'ci-bot', title: 'Surrogate in a label', label_names: ['ok', lone] },
            ['body', 'label_names', 1],
          ],
          ['/api/v1/tracker/issues/agent', { agent_id: lone, title: 'Surrogate in the agent' }, ['body', 'agent_id']],
          ['/api/v1/tracker/issues', { teamId: TEAM, title: lone }, ['body', 'title']],
        ];
        for (const [url, body, loc] of attempts) {
          // Written by hand: the escape is what a client sends (JSON.stringify would escape it too).
          const response = await t.app.inject({
            method: 'POST',
            url,
            payload: JSON.stringify(body),
            headers: { ...admin.headers, 'content-type': 'application/json' },
          });
          assert.equal(response.statusCode, 422, `${url} ${JSON.stringify(loc)}: ${response.body}`);
          assert.match(response.body, /\\ud800/);
          assert.deepEqual(response.json().detail, [unicode(loc)]);
        }
        assert.deepEqual(await countRows(), before);
        // A surrogate pair (an emoji) is ordinary text.
        const emoji = await fileForAgent({ title: 'Pair \ud83d\ude00', label_names: ['\ud83d\ude80'] });
        assert.equal(emoji.statusCode, 201, emoji.body);
        assert.ok(emoji.json().labels.some((l: { name: string }) => l.name === '\u{1f680}'));
      },
    );
  });

  describe('who may call it', () => {
    const operations = [
      ['GET', '/api/v1/tracker/issues', undefined],
      ['POST', '/api/v1/tracker/issues', { teamId: TEAM, title: 'Anonymous issue' }],
      ['POST', '/api/v1/tracker/issues/agent', { agent_id: 'anon-bot', title: 'Anonymous filing' }],
      ['GET', '/api/v1/tracker/issues/ENG-1', undefined],
      ['PATCH', '/api/v1/tracker/issues/ENG-1', { title: 'Renamed anonymously' }],
    ] as const;

    it(
      'refuses every operation but health to anonymous ' + 'callers (401) and to users who are not admins (403)',
      async () => {
        const user = await signIn(t.app, t.database);
        for (const [method, url, payload] of operations) {
          const anonymous = await call(method, url, payload, {});
          assert.equal(anonymous.statusCode, 401, `${method} ${url}`);
          assert.deepEqual(anonymous.json(), { detail: 'Not authenticated' });
          const plain = await call(method, url, payload, user.headers);
          assert.equal(plain.statusCode, 403, `${method} ${url}`);
        }
        assert.equal(
          (await call('GET', '/api/v1/tracker/health', undefined, {})).statusCode,
          200,
          'health stays public',
        );
        const listed = await call('GET', '/api/v1/tracker/issues?limit=250');
        assert.ok(
          !listed.json().issues.some((i: { title: string }) => /anonymous/i.test(i.title)),
          'nothing was filed or changed by them',
        );
      },
    );

    it('records the admin who acted in the audit trail', async () => {
      const issue = await create({ title: 'Audited issue' });
      const [row] = await t.database.db
        .select()
        .from(auditLog)
        .where(and(eq(auditLog.action, 'tracker.issue.create'), eq(auditLog.targetId, issue.id)));
      assert.equal(row!.actorId, admin.id);
    });

    it('stores what the body declares and nothing else', async () => {
      const issue = await create({
        title: 'Declared only',
        agentId: 'spoofed-agent',
        identifier: 'ENG-99999',
        createdAt: '2001-01-01T00:00:00.000Z',
      });
      assert.equal(issue.agentId, null);
      assert.notEqual(issue.identifier, 'ENG-99999');
      assert.notEqual(issue.createdAt, '2001-01-01T00:00:00.000Z');
    });

    it('documents health as public and the other five for a bearer token', async () => {
      const document = (await call('GET', '/openapi.json')).json();
      const paths = document.paths as Record<
        string,
        Record<string, { security?: unknown; tags: string[]; responses: Record<string, unknown> }>
      >;
      assert.deepEqual(paths['/api/v1/tracker/health']!.get!.security, []);
      const secured = [
        ['/api/v1/tracker/issues', 'get'],
        ['/api/v1/tracker/issues', 'post'],
        ['/api/v1/tracker/issues/{issue_id}', 'get'],
        ['/api/v1/tracker/issues/{issue_id}', 'patch'],
        ['/api/v1/tracker/issues/agent', 'post'],
      ] as const;
      for (const [path, method] of secured) {
        const operation = paths[path]?.[method];
        assert.ok(operation, `${method} ${path}`);
        assert.deepEqual(operation.tags, ['tracker']);
        assert.deepEqual(operation.security, [{ bearerAuth: ['admin'] }], `${method} ${path}`);
        assert.ok(
          '401' in operation.responses && '403' in operation.responses,
          `${method} ${path} documents 401 and 403`,
        );
      }
    });
  });

  describe('label creation is bounded', () => {
    it(`creates no label past ${MAX_LOCAL_LABELS}: a filing that needs one more answers 422`, async () => {
      let refused: { statusCode: number; json(): { detail: { loc: (string | number)[]; msg: string }[] } } | undefined;
      for (let round = 0; round <= MAX_LOCAL_LABELS / 20 && !refused; round++) {
        const names = Array.from({ length: 20 }, (_, i) => `bulk-${round}-${i}`);
        const response = await fileForAgent({
          title: `Bulk labels ${round}`,
          agent_id: 'label-flood',
          label_names: names,
        });
        if (response.statusCode === 422) refused = response;
        else assert.equal(response.statusCode, 201, response.body);
      }
      assert.ok(refused, 'a filing was refused before the labels outgrew the bound');
      assert.deepEqual(refused.json().detail[0]!.loc, ['body', 'label_names']);
      assert.match(refused.json().detail[0]!.msg, /holds 1000 labels/);
      const reused = await fileForAgent({
        title: 'Existing labels still work',
        agent_id: 'label-flood',
        label_names: ['bulk-0-0'],
      });
      assert.equal(reused.statusCode, 201, 'filing with labels that exist goes on');
    });
  });
});
