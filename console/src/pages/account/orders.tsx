// Your orders: place one (paper or live), list them newest first with what placed them, see an order's
// fills, and cancel one not final. Each order the form places carries an Idempotency-Key kept until it
// is answered, so a second click or a retry after a lost answer never places it twice.
import { useState } from 'preact/hooks';
import { time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, Select, TextInput, useAction, useApi } from '../../ui.tsx';

interface Order {
  id: string;
  exchange: string;
  symbol: string;
  side: string;
  type: string;
  mode: string;
  amount: string;
  price: string | null;
  status: string;
  filled: string;
  source: string;
  created_at: string;
}

interface Fill {
  id: string;
  price: string;
  amount: string;
  fee: string;
  fee_currency: string | null;
  at: string;
}

const FINAL = ['filled', 'canceled', 'expired', 'rejected'];
const VENUES = ['binance', 'binanceus', 'coinbase', 'kraken', 'okx', 'bybit'];
const MODES = [
  ['paper', 'Paper'],
  ['live', 'Live'],
] as const;
const SIDES = [
  ['buy', 'Buy'],
  ['sell', 'Sell'],
] as const;
const TYPES = [
  ['market', 'Market'],
  ['limit', 'Limit'],
] as const;

const summary = (o: Order) => `${o.side} ${o.amount} ${o.symbol} ${o.type}${o.price ? ` @ ${o.price}` : ''}`;

function PlaceOrderForm(props: { placed: () => Promise<void> }) {
  const [draft, setDraft] = useState({
    mode: 'paper',
    exchange: 'binance',
    symbol: 'BTC/USDT',
    side: 'buy',
    type: 'market',
    amount: '',
    price: '',
  });
  // One key per order: kept across retries of the same order, renewed once it is answered.
  const [key, setKey] = useState(() => crypto.randomUUID());
  const [answer, setAnswer] = useState<Order | null>(null);
  const action = useAction();
  const set = (field: keyof typeof draft) => (value: string) => setDraft({ ...draft, [field]: value });
  const place = async (event: Event) => {
    event.preventDefault();
    const order = await action.run(() =>
      api<Order>('/api/orders', {
        method: 'POST',
        headers: { 'idempotency-key': key },
        body: {
          mode: draft.mode,
          exchange: draft.exchange,
          symbol: draft.symbol.trim(),
          side: draft.side,
          type: draft.type,
          amount: draft.amount.trim(),
          ...(draft.type === 'limit' ? { price: draft.price.trim() } : {}),
        },
      }),
    );
    if (!order) return;
    setAnswer(order);
    setKey(crypto.randomUUID());
    await props.placed();
  };
  return (
    <Section title="Place an order">
      <form onSubmit={place}>
        <Field label="Mode" hint="Live orders need LIVE_TRADING on the server and two-factor on your account.">
          <Select value={draft.mode} onValue={set('mode')} options={MODES} />
        </Field>
        <Field label="Exchange">
          <Select value={draft.exchange} onValue={set('exchange')} options={VENUES} />
        </Field>
        <Field label="Symbol">
          <TextInput required maxLength={40} value={draft.symbol} onValue={set('symbol')} />
        </Field>
        <Field label="Side">
          <Select value={draft.side} onValue={set('side')} options={SIDES} />
        </Field>
        <Field label="Order type">
          <Select value={draft.type} onValue={set('type')} options={TYPES} />
        </Field>
        <Field label="Amount" hint="In the base currency (BTC of BTC/USDT).">
          <TextInput required inputMode="decimal" value={draft.amount} onValue={set('amount')} />
        </Field>
        {draft.type === 'limit' ? (
          <Field label="Limit price">
            <TextInput required inputMode="decimal" value={draft.price} onValue={set('price')} />
          </Field>
        ) : null}
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.pending}>
          Place order
        </button>
      </form>
      {answer ? (
        <p role="status">
          Placed: {summary(answer)}, {answer.status} ({answer.filled} filled).
        </p>
      ) : null}
    </Section>
  );
}

function FillsOf(props: { order: Order }) {
  const detail = useApi<{ fills: Fill[] }>(`/api/orders/${props.order.id}`);
  return (
    <Section title="Fills">
      <ErrorNote error={detail.error} />
      <Loading loading={detail.loading && !detail.data} />
      {detail.data ? (
        <DataTable
          caption={`Fills of ${summary(props.order)}`}
          rows={detail.data.fills}
          rowKey={(f) => f.id}
          empty="No fills."
          columns={[
            { key: 'at', label: 'When', render: (f) => time(f.at) },
            { key: 'amount', label: 'Amount', render: (f) => f.amount },
            { key: 'price', label: 'Price', render: (f) => f.price },
            { key: 'fee', label: 'Fee', render: (f) => `${f.fee} ${f.fee_currency ?? ''}`.trim() },
          ]}
        />
      ) : null}
    </Section>
  );
}

export function OrdersPanel() {
  const list = useApi<{ orders: Order[]; total: number }>('/api/orders', { limit: 50 });
  const action = useAction();
  const [shown, setShown] = useState<Order | null>(null);
  const cancel = async (order: Order) => {
    await action.run(() => api(`/api/orders/${order.id}`, { method: 'DELETE' }));
    await list.reload();
  };
  return (
    <>
      <PlaceOrderForm placed={list.reload} />
      <Section title="Orders">
        <ErrorNote error={list.error ?? action.error} />
        <Loading loading={list.loading && !list.data} />
        {list.data ? (
          <DataTable
            caption={`Your orders, newest first (${list.data.total} in all)`}
            rows={list.data.orders}
            rowKey={(o) => o.id}
            empty="No orders yet."
            columns={[
              { key: 'when', label: 'Placed', render: (o) => time(o.created_at) },
              { key: 'what', label: 'Order', render: summary },
              { key: 'where', label: 'Mode', render: (o) => `${o.mode} on ${o.exchange}` },
              { key: 'status', label: 'Status', render: (o) => `${o.status} (${o.filled} filled)` },
              { key: 'source', label: 'From', render: (o) => o.source },
              {
                key: 'actions',
                label: 'Actions',
                render: (o) => (
                  <span class="row">
                    <button type="button" aria-label={`Fills of order ${o.id}`} onClick={() => setShown(o)}>
                      Fills
                    </button>
                    {FINAL.includes(o.status) ? null : (
                      <button
                        type="button"
                        class="danger"
                        aria-label={`Cancel order ${o.id}`}
                        onClick={() => void cancel(o)}
                      >
                        Cancel
                      </button>
                    )}
                  </span>
                ),
              },
            ]}
          />
        ) : null}
      </Section>
      {shown ? <FillsOf key={shown.id} order={shown} /> : null}
    </>
  );
}
