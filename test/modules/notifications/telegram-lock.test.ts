// One reader of the bot's updates per deployment (decisions 860, 922): the reader holds its lock on a
// PostgreSQL connection of its own, and once that connection is lost (cut for real, through a loopback TCP
// proxy: reset, then refused) the lock is free for another instance, so this reader stops before its next
// poll rather than poll beside the other for the rest of its ten-minute term; it reads again once it holds
// the lock anew.
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, it } from 'node:test';
import { createTelegramLinkRepository } from '../../../src/modules/notifications/telegram-link.repository.ts';
import { openDatabase, type Database } from '../../../src/platform/db/database.ts';
import { startTelegramBot, type TelegramBot } from '../../fakes/telegram.ts';
import { startTcpProxy, type TcpProxy } from '../../fakes/tcp-proxy.ts';
import { withoutPostgres } from '../../helpers/services.ts';
import { buildTestApp, testDatabase, testDatabaseUrl, type TestApp } from '../../helpers/test-app.ts';
import { waitFor } from '../../helpers/wait.ts';
import { allRead, botEnv, startUpdates } from './telegram-fixtures.ts';

const NO_POSTGRES = withoutPostgres(
  "the reader's lock is cut through a TCP proxy in front of a real server (DATABASE_URL=postgres://...)",
);
const LOST = 'the telegram updates lock was lost with its database connection; polling stops until it is held again';

describe("the bot's updates reader whose lock connection is lost", { skip: NO_POSTGRES }, () => {
  let proxy: TcpProxy;
  let database: Database;
  let t: TestApp;
  let bot: TelegramBot;

  before(async () => {
    bot = await startTelegramBot();
    const url = new URL((await testDatabaseUrl())!);
    proxy = await startTcpProxy({ host: url.hostname, port: Number(url.port || 5432) });
    database = await openDatabase({ url: proxy.url(url.toString()), poolSize: 4, connectTimeoutMs: 2_000 });
    t = await buildTestApp({ env: botEnv(bot), database });
  });
  after(async () => {
    await proxy?.mode('pass');
    await t?.close();
    await database?.close();
    await proxy?.close();
    await bot?.close();
  });

  it('stops polling before its next poll once the connection is cut, and reads again once it holds the lock', async () => {
    // Another instance, on a connection of its own that nothing cuts.
    const other = createTelegramLinkRepository(await testDatabase());
    startUpdates(t);
    await waitFor(() => bot.polls.length > 0, 'the reader polling');
    assert.equal(await other.whileHolding(async () => assert.fail('ran beside the reader')), false);

    // The database gone for the reader: its open connections reset, new ones refused. PostgreSQL ends
    // the reader's session, and with it the lock: the other instance may take it now.
    const refusing = proxy.mode('refuse');
    proxy.reset();
    await refusing;
    await waitFor(async () => await other.whileHolding(async () => {}), 'the lock free for another instance');

    // The reader's poll in flight ends with a message; before polling again it finds its lock gone.
    const polls = bot.polls.length;
    const lost = () => t.logLines().some((line) => line.msg === LOST);
    bot.sendUpdate('830000001', 'hello');
    await waitFor(() => lost() || bot.polls.length > polls, 'the reader polling again, or noticing its lost lock');
    await sleep(1_500);
    assert.equal(bot.polls.length, polls, 'no poll beside the next reader');
    assert.ok(lost(), 'the loss logged');

    // The database back: the reader holds the lock again and reads.
    await proxy.mode('pass');
    bot.sendUpdate('830000002', 'still there?');
    await allRead(bot);
    assert.ok(bot.polls.length > polls, 'reading again');
  });
});
