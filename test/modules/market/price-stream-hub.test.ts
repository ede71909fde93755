// The price stream's hub on its own, fed by the live feed from the loopback WebSocket fake: a
// subscription is handed from what holds its batches (while the route writes the snapshot) to the
// stream itself, whose own write the fan-out then calls (decision 540).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import pino from 'pino';
import type { SseFrame } from '../../../src/platform/http/sse.ts';
import { systemClock } from '../../../src/platform/clock.ts';
import { createBinanceLiveFeed } from '../../../src/modules/market/adapters/binance-live-feed.ts';
import type { LivePriceFeed } from '../../../src/modules/market/adapters/market-source.ts';
import type { MarketData } from '../../../src/modules/market/market-data.ts';
import { createPriceStream, type PriceStream } from '../../../src/modules/market/price-stream.service.ts';
import type { PriceService } from '../../../src/modules/market/prices.service.ts';
import { startBinanceWsFake, type BinanceWsFake } from '../../fakes/binance-ws.ts';
import { waitFor } from '../../helpers/wait.ts';

/** Never reached while the feed is live: the hub reads the REST list only when it is not. */
const unused = new Proxy({} as MarketData & Pick<PriceService, 'quotes'>, {
  get: (_target, name) => () => {
    throw new Error(`the REST side was asked for ${String(name)} while the stream was live`);
  },
});

/** A subscriber that keeps the text of each frame it is handed, and which object its write ran on. */
class Collector {
  readonly texts: string[] = [];
  readonly receivers: unknown[] = [];
  write(frame: SseFrame): boolean {
    this.receivers.push(this);
    this.texts.push(frame.bytes.toString());
    return true;
  }
}

describe('the price stream hub', () => {
  let ws: BinanceWsFake;
  let live: LivePriceFeed;
  let hub: PriceStream;
  let price = 70_000;

  /** Moves BTCUSDT and waits until the feed has passed the tick on (one batch per tick: 250 ms apart). */
  async function tick(): Promise<void> {
    price += 1;
    ws.setPrice('BTCUSDT', String(price));
    ws.push(['BTCUSDT']);
    await waitFor(() => live.tick('BTCUSDT')?.price === String(price), 'the tick');
    await new Promise((resolve) => setTimeout(resolve, 260));
  }

  before(async () => {
    ws = await startBinanceWsFake();
    live = createBinanceLiveFeed({ baseUrl: ws.url, clock: systemClock, logger: pino({ level: 'silent' }) });
    live.start();
    await waitFor(() => ws.connections === 1, 'the upstream stream');
    ws.push(['BTCUSDT']);
    await waitFor(() => live.state().live, 'the live feed');
    hub = createPriceStream({
      data: unused,
      prices: unused,
      live,
      logger: pino({ level: 'silent' }),
      restSource: 'rest',
    });
  });
  after(async () => {
    hub.stop();
    await live.stop();
    await ws.close();
  });

  it('hands a subscription from what held its batches to the stream, whose own write then gets each frame', async () => {
    const holder = new Collector();
    const stream = new Collector();
    const subscription = hub.subscribe(['BTCUSDT'], holder);
    await tick();
    assert.equal(holder.texts.length, 1, 'the holder heard the first tick');
    assert.match(holder.texts[0]!, new RegExp(`"symbol":"BTCUSDT","price":${price},`));

    subscription.handTo(stream);
    assert.equal(hub.subscribers(), 1, 'handed, not added');
    await tick();
    assert.equal(holder.texts.length, 1, 'the holder hears no more');
    assert.equal(stream.texts.length, 1);
    assert.match(stream.texts[0]!, new RegExp(`"symbol":"BTCUSDT","price":${price},`));
    assert.equal(stream.receivers[0], stream, "the stream's own write ran, on the stream");

    subscription.unsubscribe();
    assert.equal(hub.subscribers(), 0);
    assert.equal(hub.symbolSets(), 0, 'the set is forgotten with its last subscriber');
    subscription.handTo(holder);
    assert.equal(hub.subscribers(), 0, 'a subscription that ended is not handed on');
    await tick();
    assert.equal(stream.texts.length + holder.texts.length, 2, 'nobody hears a tick after the end');
  });
});
