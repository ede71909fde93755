// One pair: candlesticks and volume (lightweight-charts), an interval switch, the order book's depth
// and the 24 h figures; the last candle follows the live price.
import {
  CandlestickSeries,
  ColorType,
  createChart,
  HistogramSeries,
  type IChartApi,
  type ISeriesApi,
  type UTCTimestamp,
} from 'lightweight-charts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { compact, num, percent, price, time, trend } from '../format.ts';
import { followPrices } from '../live.ts';
import { DataTable, TradingViewCredit, ErrorNote, Link, Loading, Section, useApi } from '../ui.tsx';
import type { Ticker } from './markets.tsx';

const INTERVALS = ['1m', '5m', '15m', '1h', '4h', '1d', '1w'] as const;
interface Candle {
  timestamp: number;
  open: number;
  high: number;
  low: number;
  close: number;
  volume: number;
}
interface Level {
  price: number;
  quantity: number;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function Chart(props: { symbol: string; interval: string; livePrice: number | null }) {
  const box = useRef<HTMLDivElement>(null);
  const chart = useRef<{ api: IChartApi; candles: ISeriesApi<'Candlestick'>; volume: ISeriesApi<'Histogram'> } | null>(
    null,
  );
  const last = useRef<Candle | null>(null);
  const ohlc = useApi<{ candles: Candle[] }>('/api/v1/market/ohlc', {
    symbol: props.symbol,
    interval: props.interval,
    limit: 300,
  });

  useEffect(() => {
    const api = createChart(box.current!, {
      autoSize: true,
      // The library's own logo injects a <style> element, which the CSP refuses; the credit is in the caption.
      layout: {
        background: { type: ColorType.Solid, color: css('--surface') },
        textColor: css('--text'),
        attributionLogo: false,
      },
      grid: { vertLines: { color: css('--line') }, horzLines: { color: css('--line') } },
      timeScale: { timeVisible: true },
      localization: { locale: navigator.language },
    });
    const candles = api.addSeries(CandlestickSeries, {
      upColor: css('--up'),
      downColor: css('--down'),
      wickUpColor: css('--up'),
      wickDownColor: css('--down'),
      borderVisible: false,
    });
    const volume = api.addSeries(HistogramSeries, { priceScaleId: '', priceFormat: { type: 'volume' } });
    volume.priceScale().applyOptions({ scaleMargins: { top: 0.8, bottom: 0 } });
    chart.current = { api, candles, volume };
    return () => {
      api.remove();
      chart.current = null;
    };
  }, []);

  useEffect(() => {
    const c = chart.current;
    if (!c || !ohlc.data) return;
    const rows = ohlc.data.candles;
    c.candles.setData(
      rows.map((k) => ({
        time: (k.timestamp / 1000) as UTCTimestamp,
        open: k.open,
        high: k.high,
        low: k.low,
        close: k.close,
      })),
    );
    c.volume.setData(
      rows.map((k) => ({
        time: (k.timestamp / 1000) as UTCTimestamp,
        value: k.volume,
        color: k.close >= k.open ? css('--up-soft') : css('--down-soft'),
      })),
    );
    c.api.timeScale().fitContent();
    last.current = rows.length ? { ...rows[rows.length - 1]! } : null;
  }, [ohlc.data]);

  useEffect(() => {
    const c = chart.current;
    const candle = last.current;
    if (!c || !candle || props.livePrice === null) return;
    candle.close = props.livePrice;
    candle.high = Math.max(candle.high, props.livePrice);
    candle.low = Math.min(candle.low, props.livePrice);
    c.candles.update({
      time: (candle.timestamp / 1000) as UTCTimestamp,
      open: candle.open,
      high: candle.high,
      low: candle.low,
      close: candle.close,
    });
  }, [props.livePrice]);

  return (
    <>
      <ErrorNote error={ohlc.error} />
      <figure class="chart-figure">
        <div class="chart" ref={box} />
        <figcaption>
          {`Candlesticks of ${props.symbol}, ${props.interval} each, with volume below.`} <TradingViewCredit />
        </figcaption>
      </figure>
    </>
  );
}

function OrderBook(props: { symbol: string }) {
  const book = useApi<{
    bids: Level[];
    asks: Level[];
    spread: number | null;
    spread_percent: number | null;
    mid_price: number | null;
  }>('/api/v1/market/orderbook', { symbol: props.symbol, depth: 20 }, 10_000);
  const levels = (side: 'bid' | 'ask', rows: Level[]) => {
    let total = 0;
    const withTotal = rows.slice(0, 15).map((level) => ({ ...level, total: (total += level.quantity) }));
    return (
      <DataTable
        caption={side === 'bid' ? 'Bids (buyers)' : 'Asks (sellers)'}
        columns={[
          {
            key: 'price',
            label: 'Price',
            numeric: true,
            render: (l) => <span class={side === 'bid' ? 'up' : 'down'}>{price(l.price)}</span>,
          },
          { key: 'quantity', label: 'Quantity', numeric: true, render: (l) => num(l.quantity) },
          { key: 'total', label: 'Cumulative', numeric: true, render: (l) => num(l.total) },
        ]}
        rows={withTotal}
        rowKey={(l) => `${side}${l.price}`}
      />
    );
  };
  return (
    <Section title="Order book">
      <ErrorNote error={book.error} />
      {book.data ? (
        <>
          <p class="muted">
            Mid {price(book.data.mid_price)} · spread {price(book.data.spread)} ({percent(book.data.spread_percent)})
          </p>
          <div class="grid two">
            {levels('bid', book.data.bids)}
            {levels('ask', book.data.asks)}
          </div>
        </>
      ) : (
        <Loading loading={book.loading} />
      )}
    </Section>
  );
}

export default function PairPage(props: { path: string; query: URLSearchParams }) {
  const symbol = decodeURIComponent(props.path.split('/')[2] ?? '')
    .toUpperCase()
    .replace(/[/-]/g, '');
  const [interval, setInterval] = useState(props.query.get('interval') ?? '1h');
  const [livePrice, setLivePrice] = useState<number | null>(null);
  const ticker = useApi<Ticker[]>('/api/v1/market/ticker', { symbols: symbol }, 30_000);
  useEffect(
    () =>
      followPrices([symbol], (ticks) => {
        const tick = ticks.find((t) => t.symbol === symbol);
        if (tick) setLivePrice(tick.price);
      }),
    [symbol],
  );
  const t = ticker.data?.[0];
  return (
    <div class="page">
      <p>
        <Link href="/markets">← All markets</Link>
      </p>
      <h1>{t ? `${t.base}/${t.quote}` : symbol}</h1>
      <ErrorNote error={ticker.error} />
      <section class="stats" aria-label="24 h figures">
        <div>
          <span class="label">Last price</span>
          <strong class="price" data-symbol={symbol}>
            {price(livePrice ?? t?.price)}
          </strong>
        </div>
        <div>
          <span class="label">24 h change</span>
          <strong class={trend(t?.change_percent)}>{percent(t?.change_percent)}</strong>
        </div>
        <div>
          <span class="label">24 h high</span>
          <strong>{price(t?.high)}</strong>
        </div>
        <div>
          <span class="label">24 h low</span>
          <strong>{price(t?.low)}</strong>
        </div>
        <div>
          <span class="label">24 h volume ({t?.base ?? 'base'})</span>
          <strong>{compact(t?.volume)}</strong>
        </div>
        <div>
          <span class="label">Trades</span>
          <strong>{num(t?.trades, 0)}</strong>
        </div>
      </section>
      <Section
        title="Chart"
        actions={
          <fieldset class="segmented" aria-label="Candle interval">
            {INTERVALS.map((value) => (
              <button type="button" key={value} aria-pressed={interval === value} onClick={() => setInterval(value)}>
                {value}
              </button>
            ))}
          </fieldset>
        }
      >
        <Chart symbol={symbol} interval={interval} livePrice={livePrice} />
        <p class="muted">Times in your time zone; updated {time(Date.now())}.</p>
      </Section>
      <OrderBook symbol={symbol} />
    </div>
  );
}
