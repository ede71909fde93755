// Your orders, newest first, paper and live, with what placed them; an order not final can be canceled.
import { time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Loading, Section, useAction, useApi } from '../../ui.tsx';

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

const FINAL = ['filled', 'canceled', 'expired', 'rejected'];

export function OrdersPanel() {
  const list = useApi<{ orders: Order[]; total: number }>('/api/orders', { limit: 50 });
  const action = useAction();
  const cancel = async (order: Order) => {
    await action.run(() => api(`/api/orders/${order.id}`, { method: 'DELETE' }));
    await list.reload();
  };
  return (
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
            {
              key: 'what',
              label: 'Order',
              render: (o) => `${o.side} ${o.amount} ${o.symbol} ${o.type}${o.price ? ` @ ${o.price}` : ''}`,
            },
            { key: 'where', label: 'Mode', render: (o) => `${o.mode} on ${o.exchange}` },
            { key: 'status', label: 'Status', render: (o) => `${o.status} (${o.filled} filled)` },
            { key: 'source', label: 'From', render: (o) => o.source },
            {
              key: 'cancel',
              label: 'Cancel',
              render: (o) =>
                FINAL.includes(o.status) ? (
                  '—'
                ) : (
                  <button
                    type="button"
                    class="danger"
                    aria-label={`Cancel order ${o.id}`}
                    onClick={() => void cancel(o)}
                  >
                    Cancel
                  </button>
                ),
            },
          ]}
        />
      ) : null}
    </Section>
  );
}
