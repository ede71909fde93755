// Balances per exchange and trades with filters and paging, as stored by the last syncs.
import { useEffect, useState } from 'preact/hooks';
import { num, time } from '../../format.ts';
import { onAccountEvent } from '../../live.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useApi } from '../../ui.tsx';
import type { Credential } from './exchanges.tsx';

function useVenues(): string[] {
  const list = useApi<{ credentials: Credential[] }>('/api/exchange/credentials');
  return [...new Set((list.data?.credentials ?? []).map((c) => c.exchange_name))];
}

function VenueSelect(props: { venues: string[]; value: string; onChange: (value: string) => void }) {
  return (
    <Field label="Exchange">
      <select value={props.value} onChange={(e) => props.onChange(e.currentTarget.value)}>
        {props.venues.map((venue) => (
          <option key={venue} value={venue}>
            {venue}
          </option>
        ))}
      </select>
    </Field>
  );
}

interface Balance {
  currency: string;
  free: number;
  locked: number;
  total: number;
  sync_timestamp: string;
}

export function BalancesPanel() {
  const venues = useVenues();
  const [venue, setVenue] = useState('');
  const chosen = venue || venues[0] || '';
  const balance = useApi<{ balances: Record<string, Balance>; last_sync: string | null }>(
    chosen ? '/api/exchange/balance' : null,
    { exchange: chosen },
  );
  useEffect(
    () =>
      onAccountEvent((event) => {
        if (event.type === 'balance.synced') void balance.reload();
      }),
    [balance.reload],
  );
  const rows = Object.values(balance.data?.balances ?? {}).sort((a, b) => a.currency.localeCompare(b.currency));
  return (
    <Section title="Balances">
      {venues.length === 0 ? (
        <p>Add an exchange key first, then sync its balance.</p>
      ) : (
        <VenueSelect venues={venues} value={chosen} onChange={setVenue} />
      )}
      <ErrorNote error={balance.error} />
      <Loading loading={balance.loading && !balance.data} />
      {balance.data ? (
        <>
          <p class="muted">Last sync: {time(balance.data.last_sync)}</p>
          <DataTable
            caption={`Balances on ${chosen}`}
            rows={rows}
            rowKey={(b) => b.currency}
            empty="No balance stored yet: sync it on the Exchanges page."
            columns={[
              { key: 'currency', label: 'Currency', render: (b) => b.currency },
              { key: 'free', label: 'Free', numeric: true, render: (b) => num(b.free) },
              { key: 'locked', label: 'Locked', numeric: true, render: (b) => num(b.locked) },
              { key: 'total', label: 'Total', numeric: true, render: (b) => num(b.total) },
            ]}
          />
        </>
      ) : null}
    </Section>
  );
}

interface Trade {
  id: string;
  symbol: string;
  side: string;
  price: number | null;
  amount: number | null;
  total: number | null;
  fee: number | null;
  fee_currency: string | null;
  trade_timestamp: string;
}
const PAGE = 50;

export function TradesPanel(props: { query: URLSearchParams }) {
  const venues = useVenues();
  const [venue, setVenue] = useState('');
  const [symbol, setSymbol] = useState(props.query.get('symbol') ?? '');
  const [start, setStart] = useState('');
  const [end, setEnd] = useState('');
  const [offset, setOffset] = useState(0);
  const chosen = venue || venues[0] || '';
  const trades = useApi<{ trades: Trade[]; total_records: number; has_more: boolean }>(
    chosen ? '/api/exchange/trades' : null,
    {
      exchange: chosen,
      symbol: symbol.trim() || undefined,
      start_date: start ? new Date(start).toISOString() : undefined,
      end_date: end ? new Date(end).toISOString() : undefined,
      limit: PAGE,
      offset,
    },
  );
  const filter = (set: (value: string) => void) => (e: { currentTarget: { value: string } }) => {
    set(e.currentTarget.value);
    setOffset(0);
  };
  return (
    <Section title="Trades">
      {venues.length === 0 ? <p>Add an exchange key first, then sync its trades.</p> : null}
      <div class="row">
        {venues.length ? (
          <VenueSelect
            venues={venues}
            value={chosen}
            onChange={(v) => {
              setVenue(v);
              setOffset(0);
            }}
          />
        ) : null}
        <Field label="Pair">
          <input value={symbol} placeholder="BTC/USDT" onChange={filter(setSymbol)} />
        </Field>
        <Field label="From">
          <input type="date" value={start} onChange={filter(setStart)} />
        </Field>
        <Field label="Until">
          <input type="date" value={end} onChange={filter(setEnd)} />
        </Field>
      </div>
      <ErrorNote error={trades.error} />
      <Loading loading={trades.loading && !trades.data} />
      {trades.data ? (
        <>
          <DataTable
            caption="Your trades, newest first"
            rows={trades.data.trades}
            rowKey={(t) => t.id}
            empty="No trades match."
            columns={[
              { key: 'time', label: 'Time', render: (t) => time(t.trade_timestamp) },
              { key: 'symbol', label: 'Pair', render: (t) => t.symbol },
              {
                key: 'side',
                label: 'Side',
                render: (t) => <span class={t.side === 'buy' ? 'up' : 'down'}>{t.side}</span>,
              },
              { key: 'price', label: 'Price', numeric: true, render: (t) => num(t.price) },
              { key: 'amount', label: 'Amount', numeric: true, render: (t) => num(t.amount) },
              { key: 'total', label: 'Total', numeric: true, render: (t) => num(t.total) },
              { key: 'fee', label: 'Fee', numeric: true, render: (t) => `${num(t.fee)} ${t.fee_currency ?? ''}` },
            ]}
          />
          <div class="row">
            <button
              type="button"
              class="ghost"
              disabled={offset === 0}
              onClick={() => setOffset(Math.max(0, offset - PAGE))}
            >
              Previous page
            </button>
            <span role="status">
              {trades.data.total_records === 0
                ? 'No trades'
                : `Trades ${num(offset + 1, 0)}–${num(offset + trades.data.trades.length, 0)} of ${num(trades.data.total_records, 0)}`}
            </span>
            <button
              type="button"
              class="ghost"
              disabled={!trades.data.has_more}
              onClick={() => setOffset(offset + PAGE)}
            >
              Next page
            </button>
          </div>
        </>
      ) : null}
    </Section>
  );
}
