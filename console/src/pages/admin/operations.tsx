// Platform figures and limits, venue weight budgets and breakers, scheduled jobs with "run now",
// and the webhooks' health.
import { useEffect, useState } from 'preact/hooks';
import { num, time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';

interface Stats {
  totalUsers: number;
  activeUsers: number;
  suspendedUsers: number;
  newUsersThisMonth: number;
  totalRevenue: number;
  revenueCurrency: string;
  revenueByCurrency: Record<string, number>;
}
interface Limits {
  backtest_per_hour: number;
  optimize_per_hour: number;
  paper_transition_per_hour: number;
  bounds: Record<string, number[]>;
}
const LIMIT_NAMES = ['backtest_per_hour', 'optimize_per_hour', 'paper_transition_per_hour'] as const;
const LIMIT_LABEL: Record<string, string> = {
  backtest_per_hour: 'Backtests per hour',
  optimize_per_hour: 'Optimizations per hour',
  paper_transition_per_hour: 'Paper transitions per hour',
};

export function PlatformPanel() {
  const stats = useApi<Stats>('/api/admin/stats');
  const limits = useApi<Limits>('/api/admin/platform-limits');
  const [draft, setDraft] = useState<Record<string, number>>({});
  const action = useAction();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (limits.data) setDraft(Object.fromEntries(LIMIT_NAMES.map((n) => [n, limits.data![n]])));
  }, [limits.data]);
  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    const answer = await action.run(() => api<Limits>('/api/admin/platform-limits', { method: 'PATCH', body: draft }));
    if (answer) {
      limits.setData(answer);
      setSaved(true);
    }
  };
  const s = stats.data;
  return (
    <>
      <Section title="Platform statistics">
        <ErrorNote error={stats.error} />
        <Loading loading={stats.loading && !s} />
        {s ? (
          <div class="stats">
            <div>
              <span class="label">Users</span>
              <strong>{num(s.totalUsers, 0)}</strong>
            </div>
            <div>
              <span class="label">Active</span>
              <strong>{num(s.activeUsers, 0)}</strong>
            </div>
            <div>
              <span class="label">Suspended</span>
              <strong>{num(s.suspendedUsers, 0)}</strong>
            </div>
            <div>
              <span class="label">New this month</span>
              <strong>{num(s.newUsersThisMonth, 0)}</strong>
            </div>
            <div>
              <span class="label">Revenue ({s.revenueCurrency})</span>
              <strong>{num(s.totalRevenue, 2)}</strong>
            </div>
          </div>
        ) : null}
      </Section>
      <Section title="Platform limits">
        <ErrorNote error={limits.error ?? action.error} />
        {limits.data ? (
          <form onSubmit={save}>
            <div class="grid three">
              {LIMIT_NAMES.map((name) => {
                const [min, max] = limits.data!.bounds[name] ?? [];
                return (
                  <Field
                    key={name}
                    label={LIMIT_LABEL[name]!}
                    hint={min !== undefined ? `From ${min} to ${max}.` : undefined}
                  >
                    <input
                      type="number"
                      min={min}
                      max={max}
                      required
                      value={draft[name] ?? ''}
                      onInput={(e) => setDraft({ ...draft, [name]: Number(e.currentTarget.value) })}
                    />
                  </Field>
                );
              })}
            </div>
            <button type="submit" disabled={action.pending}>
              Save limits
            </button>
            {saved ? <span role="status"> Saved.</span> : null}
          </form>
        ) : (
          <Loading loading={limits.loading} />
        )}
      </Section>
    </>
  );
}

interface Budget {
  used_weight_1m: number | null;
  limit_1m: number | null;
  cap_1m: number | null;
  breaker_open: boolean;
  breaker_until: string | null;
  breaker_reason: string | null;
  scope: string;
}
interface VenueHealth {
  exchanges: Record<
    string,
    {
      exchange: string;
      status: string;
      latency_ms: number | null;
      error: string | null;
      checked_at: string;
      budget: Budget;
    }
  >;
}
interface MarketStatus {
  status: string;
  upstreams: Record<
    string,
    {
      healthy: boolean;
      circuit: string;
      open_until: string | null;
      open_reason: string | null;
      used_weight_1m: number | null;
      weight_limit_1m: number | null;
      weight_budget_1m: number | null;
      last_error: string | null;
    }
  >;
  live_stream: { status: string; live: boolean; serving: string; symbols: number };
}

export function VenuesPanel() {
  const venues = useApi<VenueHealth>('/api/exchange/health', undefined, 30_000);
  const market = useApi<MarketStatus>('/api/v1/market/status', undefined, 15_000);
  return (
    <>
      <Section title="Market data budgets">
        <ErrorNote error={market.error} />
        {market.data ? (
          <>
            <p class="muted">
              Status {market.data.status} · live stream {market.data.live_stream.status} (
              {market.data.live_stream.serving}, {num(market.data.live_stream.symbols, 0)} pairs)
            </p>
            <DataTable
              caption="Upstream request weight and circuit breakers"
              rows={Object.entries(market.data.upstreams).map(([name, u]) => ({ name, ...u }))}
              rowKey={(u) => u.name}
              columns={[
                { key: 'name', label: 'Upstream', render: (u) => u.name },
                {
                  key: 'used',
                  label: 'Weight used (1 min)',
                  numeric: true,
                  render: (u) => `${num(u.used_weight_1m, 0)} / ${num(u.weight_budget_1m ?? u.weight_limit_1m, 0)}`,
                },
                {
                  key: 'breaker',
                  label: 'Breaker',
                  render: (u) => (
                    <span class={u.circuit === 'open' ? 'down' : ''}>
                      {u.circuit === 'open' ? `open until ${time(u.open_until)} (${u.open_reason ?? ''})` : 'closed'}
                    </span>
                  ),
                },
                { key: 'error', label: 'Last error', render: (u) => u.last_error ?? '' },
              ]}
            />
          </>
        ) : (
          <Loading loading={market.loading} />
        )}
      </Section>
      <Section title="Exchange budgets">
        <ErrorNote error={venues.error} />
        {venues.data ? (
          <DataTable
            caption="Venues: health, weight budget and breaker"
            rows={Object.values(venues.data.exchanges)}
            rowKey={(v) => v.exchange}
            columns={[
              { key: 'venue', label: 'Venue', render: (v) => v.exchange },
              {
                key: 'status',
                label: 'Health',
                render: (v) => <span class={v.status === 'healthy' ? 'up' : 'down'}>{v.status}</span>,
              },
              { key: 'latency', label: 'Latency (ms)', numeric: true, render: (v) => num(v.latency_ms, 0) },
              {
                key: 'weight',
                label: 'Weight (1 min)',
                numeric: true,
                render: (v) => `${num(v.budget.used_weight_1m, 0)} / ${num(v.budget.cap_1m ?? v.budget.limit_1m, 0)}`,
              },
              {
                key: 'breaker',
                label: 'Breaker',
                render: (v) => (v.budget.breaker_open ? `open until ${time(v.budget.breaker_until)}` : 'closed'),
              },
              { key: 'scope', label: 'Counted', render: (v) => v.budget.scope },
            ]}
          />
        ) : (
          <Loading loading={venues.loading} />
        )}
      </Section>
    </>
  );
}

interface Jobs {
  scheduler: string;
  scheduler_running: boolean;
  secret_configured: boolean;
  jobs: {
    name: string;
    cron: string;
    next_run: string | null;
    last_run: {
      run_id: string;
      status: string;
      trigger: string;
      started_at: string;
      finished_at: string | null;
    } | null;
  }[];
}

export function JobsPanel() {
  const jobs = useApi<Jobs>('/api/scheduled/health', undefined, 10_000);
  const action = useAction();
  const [started, setStarted] = useState<string | null>(null);
  const run = async (name: string) => {
    const answer = await action.run(() =>
      api<{ run_id: string | null; status: string }>(`/api/console/jobs/${name}/run`, { method: 'POST' }),
    );
    if (answer) setStarted(`${name}: ${answer.status}`);
    await jobs.reload();
  };
  return (
    <Section title="Scheduled jobs">
      <ErrorNote error={jobs.error ?? action.error} />
      {started ? (
        <p role="status" class="notice">
          Started {started}
        </p>
      ) : null}
      {jobs.data ? (
        <>
          <p class="muted">
            Scheduler {jobs.data.scheduler}
            {jobs.data.scheduler_running ? ' (running here)' : ''} · trigger secret{' '}
            {jobs.data.secret_configured ? 'set' : 'not set'}
          </p>
          <DataTable
            caption="Jobs and their last runs"
            rows={jobs.data.jobs}
            rowKey={(j) => j.name}
            columns={[
              { key: 'name', label: 'Job', render: (j) => j.name },
              { key: 'cron', label: 'Schedule (UTC)', render: (j) => <code>{j.cron}</code> },
              {
                key: 'last',
                label: 'Last run',
                render: (j) => (j.last_run ? `${j.last_run.status}, ${time(j.last_run.started_at)}` : 'never'),
              },
              { key: 'next', label: 'Next run', render: (j) => time(j.next_run) },
              {
                key: 'run',
                label: 'Run',
                render: (j) => (
                  <button
                    type="button"
                    disabled={action.pending}
                    aria-label={`Run now: ${j.name}`}
                    onClick={() => void run(j.name)}
                  >
                    Run now
                  </button>
                ),
              },
            ]}
          />
        </>
      ) : (
        <Loading loading={jobs.loading} />
      )}
    </Section>
  );
}

interface Webhooks {
  status: string;
  allow_unsigned: boolean;
  providers: Record<
    string,
    {
      secret_configured: boolean;
      last_delivery_at: string | null;
      last_error: string | null;
      last_refused_at: string | null;
      last_refusal: string | null;
      unmatched: number;
    }
  >;
}

export function WebhooksPanel() {
  const hooks = useApi<Webhooks>('/api/webhooks/platforms/health', undefined, 30_000);
  const mailer = useApi<Record<string, string>>('/api/webhooks/health');
  return (
    <Section title="Webhook health">
      <ErrorNote error={hooks.error} />
      {hooks.data ? (
        <>
          <p class="muted">
            Status {hooks.data.status}
            {hooks.data.allow_unsigned ? ' · unsigned deliveries allowed (development only)' : ''}
            {mailer.data
              ? ` · mail events: ${Object.entries(mailer.data)
                  .map(([k, v]) => `${k} ${v}`)
                  .join(', ')}`
              : ''}
          </p>
          <DataTable
            caption="Providers: secret, last delivery and errors"
            rows={Object.entries(hooks.data.providers).map(([name, p]) => ({ name, ...p }))}
            rowKey={(p) => p.name}
            columns={[
              { key: 'name', label: 'Provider', render: (p) => p.name },
              { key: 'secret', label: 'Secret', render: (p) => (p.secret_configured ? 'configured' : 'missing') },
              { key: 'last', label: 'Last delivery', render: (p) => time(p.last_delivery_at) },
              { key: 'unmatched', label: 'Unmatched', numeric: true, render: (p) => num(p.unmatched, 0) },
              { key: 'error', label: 'Last error', render: (p) => p.last_error ?? '' },
              {
                key: 'refused',
                label: 'Last refused (anyone can cause one)',
                render: (p) => (p.last_refused_at ? `${time(p.last_refused_at)}: ${p.last_refusal ?? ''}` : ''),
              },
            ]}
          />
        </>
      ) : (
        <Loading loading={hooks.loading} />
      )}
    </Section>
  );
}
