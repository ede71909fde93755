// The paper account (balances, equity, reset), the risk limits and the kill switch.
import { useState } from 'preact/hooks';
import { time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';

interface PaperAccount {
  quote: string;
  balances: { asset: string; free: string; locked: string }[];
  equity: string | null;
}

export function PaperPanel() {
  const account = useApi<PaperAccount>('/api/paper/account');
  const action = useAction();
  const reset = async () => {
    if (!confirm('Reset the paper account? Resting paper orders are canceled and the balances start again.')) return;
    await action.run(() => api('/api/paper/account/reset', { method: 'POST', body: {} }));
    await account.reload();
  };
  return (
    <Section
      title="Paper account"
      actions={
        <button type="button" class="danger" disabled={action.pending} onClick={() => void reset()}>
          Reset
        </button>
      }
    >
      <ErrorNote error={account.error ?? action.error} />
      <Loading loading={account.loading && !account.data} />
      {account.data ? (
        <>
          <p>
            Equity: {account.data.equity ?? '—'} {account.data.quote}
          </p>
          <DataTable
            caption="Paper balances"
            rows={account.data.balances}
            rowKey={(b) => b.asset}
            empty="No balances."
            columns={[
              { key: 'asset', label: 'Asset', render: (b) => b.asset },
              { key: 'free', label: 'Free', render: (b) => b.free },
              { key: 'locked', label: 'Locked', render: (b) => b.locked },
            ]}
          />
        </>
      ) : null}
    </Section>
  );
}

type Limits = Record<
  'max_order_notional' | 'max_open_orders' | 'max_orders_per_minute' | 'price_band_percent' | 'daily_loss_limit',
  string | number | null
>;
const LIMITS: { key: keyof Limits; label: string; integer?: boolean }[] = [
  { key: 'max_order_notional', label: 'Largest order (quote)' },
  { key: 'max_open_orders', label: 'Open orders at once', integer: true },
  { key: 'max_orders_per_minute', label: 'Orders per minute', integer: true },
  { key: 'price_band_percent', label: 'Price band (%)' },
  { key: 'daily_loss_limit', label: 'Daily loss limit (quote)' },
];

interface Status {
  halted: boolean;
  halted_by: string | null;
  reason: string | null;
  until: string | null;
}

export function TradingPanel() {
  const limits = useApi<Limits & { own: Limits }>('/api/trading/limits');
  const status = useApi<Status>('/api/trading/status');
  const [draft, setDraft] = useState<Partial<Record<keyof Limits, string>>>({});
  const [reason, setReason] = useState('');
  const action = useAction();
  const save = async (event: Event) => {
    event.preventDefault();
    const body: Record<string, string | number | null> = {};
    for (const { key, integer } of LIMITS) {
      const value = draft[key];
      if (value === undefined) continue;
      body[key] = value.trim() === '' ? null : integer ? Number(value) : value.trim();
    }
    if (await action.run(() => api('/api/trading/limits', { method: 'PUT', body }))) setDraft({});
    await limits.reload();
  };
  const toggle = async (event: Event) => {
    event.preventDefault();
    const halted = status.data?.halted;
    await action.run(() =>
      halted
        ? api('/api/trading/resume', { method: 'POST' })
        : api('/api/trading/halt', { method: 'POST', body: { reason: reason.trim() || 'halted from the console' } }),
    );
    await status.reload();
  };
  return (
    <>
      <Section title="Trading halt">
        <ErrorNote error={status.error} />
        {status.data ? (
          <form onSubmit={toggle}>
            <p role="status">
              {status.data.halted
                ? `Halted by ${status.data.halted_by}: ${status.data.reason ?? ''}${status.data.until ? ` until ${time(status.data.until)}` : ''}`
                : 'Trading is on.'}
            </p>
            {status.data.halted ? null : (
              <Field label="Reason for halting">
                <input maxLength={500} value={reason} onInput={(e) => setReason(e.currentTarget.value)} />
              </Field>
            )}
            <button type="submit" class={status.data.halted ? undefined : 'danger'} disabled={action.pending}>
              {status.data.halted ? 'Resume trading' : 'Halt trading'}
            </button>
          </form>
        ) : null}
      </Section>
      <Section title="Risk limits">
        <ErrorNote error={limits.error ?? action.error} />
        <Loading loading={limits.loading && !limits.data} />
        {limits.data ? (
          <form onSubmit={save}>
            {LIMITS.map(({ key, label }) => (
              <Field
                key={key}
                label={label}
                hint={`In force: ${limits.data![key] ?? 'no limit'}. Empty: none of your own.`}
              >
                <input
                  inputMode="decimal"
                  value={draft[key] ?? String(limits.data!.own[key] ?? '')}
                  onInput={(e) => setDraft({ ...draft, [key]: e.currentTarget.value })}
                />
              </Field>
            ))}
            <button type="submit" disabled={action.pending}>
              Save limits
            </button>
          </form>
        ) : null}
      </Section>
    </>
  );
}
