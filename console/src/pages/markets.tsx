// Markets, without signing in: every pair's 24 h ticker (searchable, sortable, prices live from the
// price stream), the day's movers, a heatmap and the trending pairs.
import { useEffect, useMemo, useState } from 'preact/hooks';
import { compact, percent, price, trend } from '../format.ts';
import { followPrices } from '../live.ts';
import { DataTable, ErrorNote, Field, Link, Loading, Section, useApi, type Column } from '../ui.tsx';

export interface Ticker {
  symbol: string;
  base: string;
  quote: string;
  price: number;
  change_percent: number;
  high: number;
  low: number;
  volume: number;
  quote_volume: number;
  trades: number;
}
interface Mover {
  symbol: string;
  price: number;
  change_percent: number;
  quote_volume: number;
}
interface Tile extends Mover {
  asset: string;
  share_percent: number;
}

/** At most this many pairs are followed live (the stream's own bound is 200). */
const LIVE_PAIRS = 200;
const PAGE = 50;

export function MarketsPage() {
  const tickers = useApi<Ticker[]>('/api/v1/market/ticker');
  const [live, setLive] = useState<Record<string, number>>({});
  const [search, setSearch] = useState('');
  const [shown, setShown] = useState(PAGE);
  const followed = useMemo(
    () =>
      (tickers.data ?? [])
        .slice()
        .sort((a, b) => b.quote_volume - a.quote_volume)
        .slice(0, LIVE_PAIRS)
        .map((t) => t.symbol),
    [tickers.data],
  );
  useEffect(() => {
    if (followed.length === 0) return;
    return followPrices(followed, (ticks) =>
      setLive((before) => {
        const next = { ...before };
        for (const tick of ticks) next[tick.symbol] = tick.price;
        return next;
      }),
    );
  }, [followed.join(',')]);

  const needle = search.trim().toUpperCase().replace(/[/-]/g, '');
  const rows = (tickers.data ?? []).filter((t) => !needle || t.symbol.includes(needle) || t.base.includes(needle));
  const priceOf = (t: Ticker) => live[t.symbol] ?? t.price;
  const columns: Column<Ticker>[] = [
    {
      key: 'symbol',
      label: 'Pair',
      render: (t) => <Link href={`/markets/${t.symbol}`}>{`${t.base}/${t.quote}`}</Link>,
      sort: (t) => t.symbol,
    },
    {
      key: 'price',
      label: 'Price',
      numeric: true,
      render: (t) => (
        <span data-symbol={t.symbol} class="price">
          {price(priceOf(t))}
        </span>
      ),
      sort: priceOf,
    },
    {
      key: 'change',
      label: '24 h change',
      numeric: true,
      render: (t) => <span class={trend(t.change_percent)}>{percent(t.change_percent)}</span>,
      sort: (t) => t.change_percent,
    },
    { key: 'high', label: '24 h high', numeric: true, render: (t) => price(t.high), sort: (t) => t.high },
    { key: 'low', label: '24 h low', numeric: true, render: (t) => price(t.low), sort: (t) => t.low },
    {
      key: 'volume',
      label: 'Volume (quote)',
      numeric: true,
      render: (t) => compact(t.quote_volume),
      sort: (t) => t.quote_volume,
    },
  ];

  return (
    <div class="page">
      <h1>Markets</h1>
      <div class="grid three">
        <Movers />
        <Trending />
      </div>
      <Heatmap />
      <Section title="All pairs">
        <div class="inline">
          <Field label="Search pairs">
            <input
              type="search"
              value={search}
              placeholder="BTC, ETHUSDT…"
              onInput={(e) => {
                setSearch(e.currentTarget.value);
                setShown(PAGE);
              }}
            />
          </Field>
        </div>
        <ErrorNote error={tickers.error} />
        <Loading loading={tickers.loading && !tickers.data} />
        {tickers.data ? (
          <>
            <DataTable
              caption="24 h tickers, prices live"
              columns={columns}
              rows={rows.slice(0, shown)}
              rowKey={(t) => t.symbol}
              sortable
              initialSort="volume"
              empty="No pair matches."
            />
            <p class="muted" role="status">
              {`${Math.min(shown, rows.length)} of ${rows.length} pairs`}
            </p>
            {rows.length > shown ? (
              <button type="button" onClick={() => setShown(shown + PAGE)}>
                Show more pairs
              </button>
            ) : null}
          </>
        ) : null}
      </Section>
    </div>
  );
}

function Movers() {
  const movers = useApi<{ gainers: Mover[]; losers: Mover[] }>('/api/v1/market/movers', { limit: 5 }, 60_000);
  const columns: Column<Mover>[] = [
    { key: 'symbol', label: 'Pair', render: (m) => <Link href={`/markets/${m.symbol}`}>{m.symbol}</Link> },
    { key: 'price', label: 'Price', numeric: true, render: (m) => price(m.price) },
    {
      key: 'change',
      label: 'Change',
      numeric: true,
      render: (m) => <span class={trend(m.change_percent)}>{percent(m.change_percent)}</span>,
    },
  ];
  return (
    <>
      <Section title="Top gainers">
        <ErrorNote error={movers.error} />
        {movers.data ? (
          <DataTable
            caption="Top gainers over 24 h"
            columns={columns}
            rows={movers.data.gainers}
            rowKey={(m) => m.symbol}
          />
        ) : (
          <Loading loading={movers.loading} />
        )}
      </Section>
      <Section title="Top losers">
        {movers.data ? (
          <DataTable
            caption="Top losers over 24 h"
            columns={columns}
            rows={movers.data.losers}
            rowKey={(m) => m.symbol}
          />
        ) : (
          <Loading loading={movers.loading} />
        )}
      </Section>
    </>
  );
}

function Trending() {
  const trending = useApi<{ pairs: (Mover & { rank: number })[] }>('/api/v1/market/trending', { limit: 5 }, 60_000);
  return (
    <Section title="Trending">
      <ErrorNote error={trending.error} />
      {trending.data ? (
        <DataTable
          caption="Trending pairs"
          columns={[
            { key: 'rank', label: 'Rank', numeric: true, render: (p) => p.rank },
            { key: 'symbol', label: 'Pair', render: (p) => <Link href={`/markets/${p.symbol}`}>{p.symbol}</Link> },
            {
              key: 'change',
              label: 'Change',
              numeric: true,
              render: (p) => <span class={trend(p.change_percent)}>{percent(p.change_percent)}</span>,
            },
          ]}
          rows={trending.data.pairs}
          rowKey={(p) => p.symbol}
        />
      ) : (
        <Loading loading={trending.loading} />
      )}
    </Section>
  );
}

/** Tile size and colour come from classes (no inline style under the console's CSP). */
function tileClass(tile: Tile): string {
  const size = tile.share_percent >= 20 ? 4 : tile.share_percent >= 8 ? 3 : tile.share_percent >= 3 ? 2 : 1;
  const strength = Math.min(3, Math.floor(Math.abs(tile.change_percent) / 2) + 1);
  return `tile s${size} ${tile.change_percent >= 0 ? 'up' : 'down'}${strength}`;
}

function Heatmap() {
  const heatmap = useApi<{ tiles: Tile[] }>('/api/v1/market/heatmap', { limit: 30 }, 60_000);
  return (
    <Section title="Heatmap">
      <ErrorNote error={heatmap.error} />
      <Loading loading={heatmap.loading && !heatmap.data} />
      {heatmap.data ? (
        <ul class="heatmap" aria-label="Assets by share of 24 h volume, coloured by 24 h change">
          {heatmap.data.tiles.map((tile) => (
            <li key={tile.symbol} class={tileClass(tile)}>
              <Link href={`/markets/${tile.symbol}`}>
                <strong>{tile.asset}</strong>
                <span>{percent(tile.change_percent)}</span>
              </Link>
            </li>
          ))}
        </ul>
      ) : null}
    </Section>
  );
}
