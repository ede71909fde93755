// Every loopback fake that a client keeps connections to keeps an idle one open 60 s, not Node's 5 s:
// a fake shares the app's event loop, and a stall of the app's must not reset a kept-alive connection
// under a request it has not read yet (test/fakes/loopback-server.ts).
import assert from 'node:assert/strict';
import { Agent, request } from 'node:http';
import { describe, it } from 'node:test';
import { startAiProvidersFake } from '../fakes/ai-providers.ts';
import { startBinanceFake } from '../fakes/binance.ts';
import { startBybitFake } from '../fakes/bybit.ts';
import { startChatReceiver } from '../fakes/chat-webhook.ts';
import { startCoinbaseFake } from '../fakes/coinbase.ts';
import { startCoinGeckoFake } from '../fakes/coingecko.ts';
import { startIdentityProvider } from '../fakes/identity-provider.ts';
import { startKrakenFake } from '../fakes/kraken.ts';
import { startLinearFake } from '../fakes/linear.ts';
import { FAKE_KEEP_ALIVE_MS } from '../fakes/loopback-server.ts';
import { startOkxFake } from '../fakes/okx.ts';
import { startTelegramBot } from '../fakes/telegram.ts';

const FAKES: Record<string, () => Promise<{ url: string; close(): Promise<void> }>> = {
  Binance: () => startBinanceFake(),
  OKX: startOkxFake,
  Bybit: startBybitFake,
  Coinbase: startCoinbaseFake,
  Kraken: startKrakenFake,
  CoinGecko: () => startCoinGeckoFake(),
  'AI providers': startAiProvidersFake,
  Linear: () => startLinearFake(),
  Telegram: () => startTelegramBot(),
  'chat webhook': () => startChatReceiver({ flavor: 'slack' }),
  'identity provider': async () => {
    const provider = await startIdentityProvider();
    return { url: provider.jwksUrl, close: () => provider.close() };
  },
};

/** One GET on the agent's kept-alive connection: its Keep-Alive header and whether it reused a socket. */
function get(agent: Agent, url: string): Promise<{ keepAlive: unknown; reused: boolean }> {
  return new Promise((resolve, reject) => {
    const sent = request(url, { agent }, (response) => {
      response.resume();
      response.on('end', () => resolve({ keepAlive: response.headers['keep-alive'], reused: sent.reusedSocket }));
    });
    sent.on('error', reject).end();
  });
}

describe('loopback fakes keep idle connections', () => {
  for (const [name, start] of Object.entries(FAKES)) {
    it(`the ${name} fake says it keeps an idle connection ${FAKE_KEEP_ALIVE_MS / 1000} s, and does`, async () => {
      const fake = await start();
      const agent = new Agent({ keepAlive: true, maxSockets: 1 });
      try {
        const first = await get(agent, fake.url);
        // Node's server states its own idle timeout on every kept-alive answer.
        assert.equal(first.keepAlive, `timeout=${FAKE_KEEP_ALIVE_MS / 1000}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        const second = await get(agent, fake.url);
        assert.ok(second.reused, 'the idle connection was used again');
      } finally {
        agent.destroy();
        await fake.close();
      }
    });
  }
});
