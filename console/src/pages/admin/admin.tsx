// The admin area (admins only): the dashboard overview and integrations, users, platform figures and
// limits, the command center, provider keys, retrieval settings, venues, jobs and webhooks.
import { num, time } from '../../format.ts';
import { DataTable, ErrorNote, Loading, Section, SubNav, useApi } from '../../ui.tsx';
import { CommandCenterPanel } from './command-center.tsx';
import { JobsPanel, PlatformPanel, VenuesPanel, WebhooksPanel } from './operations.tsx';
import { KeysPanel, RetrievalPanel } from './settings.tsx';
import { UsersPanel } from './users.tsx';

const SECTIONS = [
  { href: '/admin', label: 'Overview' },
  { href: '/admin/users', label: 'Users' },
  { href: '/admin/platform', label: 'Platform' },
  { href: '/admin/command-center', label: 'Command center' },
  { href: '/admin/keys', label: 'Provider keys' },
  { href: '/admin/retrieval', label: 'Retrieval' },
  { href: '/admin/venues', label: 'Venues' },
  { href: '/admin/jobs', label: 'Jobs' },
  { href: '/admin/webhooks', label: 'Webhooks' },
  { href: '/admin/integrations', label: 'Integrations' },
];

interface Overview {
  generated_at: string;
  status: string;
  service: { version: string; started_at: string; uptime_seconds: number };
  database: { kind: string; status: string; latency_ms: number | null };
  cache: { kind: string; status: string; latency_ms: number | null };
  counts: {
    users_by_status: Record<string, number> | null;
    active_sessions: number | null;
    open_tasks: number | null;
    webhook_deliveries_24h: { total: number } | null;
    outbox: { backlog: number; dead_letters: number } | null;
  };
  jobs: { job: string; status: string; started_at: string; error: string | null }[] | null;
}
interface Agents {
  counts: { active: number; idle: number; silent: number };
  agents: {
    id: string;
    name: string | null;
    last_seen_at: string | null;
    actions_24h: number;
    open_tasks: number;
    status: string;
  }[];
}

function Figure(props: { label: string; value: string }) {
  return (
    <div>
      <span class="label">{props.label}</span>
      <strong>{props.value}</strong>
    </div>
  );
}

function OverviewPanel() {
  const overview = useApi<Overview>('/api/v1/dashboard/overview', undefined, 30_000);
  const agents = useApi<Agents>('/api/v1/dashboard/agents', undefined, 60_000);
  const o = overview.data;
  const users = o?.counts.users_by_status;
  return (
    <>
      <Section title="Service">
        <ErrorNote error={overview.error} />
        <Loading loading={overview.loading && !o} />
        {o ? (
          <div class="stats">
            <Figure label="Status" value={o.status} />
            <Figure label="Version" value={o.service.version} />
            <Figure label="Up since" value={time(o.service.started_at)} />
            <Figure
              label={`Database (${o.database.kind})`}
              value={`${o.database.status}${o.database.latency_ms !== null ? `, ${num(o.database.latency_ms, 1)} ms` : ''}`}
            />
            <Figure
              label={`Cache (${o.cache.kind})`}
              value={`${o.cache.status}${o.cache.latency_ms !== null ? `, ${num(o.cache.latency_ms, 1)} ms` : ''}`}
            />
            <Figure
              label="Users"
              value={
                users
                  ? Object.entries(users)
                      .map(([k, v]) => `${num(v, 0)} ${k}`)
                      .join(', ')
                  : '—'
              }
            />
            <Figure label="Active sessions" value={num(o.counts.active_sessions, 0)} />
            <Figure label="Open tasks" value={num(o.counts.open_tasks, 0)} />
            <Figure label="Webhooks (24 h)" value={num(o.counts.webhook_deliveries_24h?.total, 0)} />
            <Figure
              label="Outbox backlog / dead"
              value={
                o.counts.outbox ? `${num(o.counts.outbox.backlog, 0)} / ${num(o.counts.outbox.dead_letters, 0)}` : '—'
              }
            />
          </div>
        ) : null}
        {o?.jobs ? (
          <DataTable
            caption="Last run of each job"
            rows={o.jobs}
            rowKey={(j) => j.job}
            columns={[
              { key: 'job', label: 'Job', render: (j) => j.job },
              {
                key: 'status',
                label: 'Status',
                render: (j) => <span class={j.status === 'failed' ? 'down' : ''}>{j.status}</span>,
              },
              { key: 'started', label: 'Started', render: (j) => time(j.started_at) },
              { key: 'error', label: 'Error', render: (j) => j.error ?? '' },
            ]}
          />
        ) : null}
      </Section>
      <Section title="Agents">
        <ErrorNote error={agents.error} />
        {agents.data ? (
          <>
            <p class="muted">
              {num(agents.data.counts.active, 0)} active · {num(agents.data.counts.idle, 0)} idle ·{' '}
              {num(agents.data.counts.silent, 0)} silent
            </p>
            <DataTable
              caption="Agents and their status"
              rows={agents.data.agents}
              rowKey={(a) => a.id}
              empty="No agent has reported yet."
              columns={[
                { key: 'name', label: 'Agent', render: (a) => a.name ?? a.id },
                { key: 'status', label: 'Status', render: (a) => a.status },
                { key: 'seen', label: 'Last seen', render: (a) => time(a.last_seen_at) },
                { key: 'actions', label: 'Actions (24 h)', numeric: true, render: (a) => num(a.actions_24h, 0) },
                { key: 'tasks', label: 'Open tasks', numeric: true, render: (a) => num(a.open_tasks, 0) },
              ]}
            />
          </>
        ) : (
          <Loading loading={agents.loading} />
        )}
      </Section>
    </>
  );
}

interface Probe {
  configured: boolean;
  reachable: boolean | null;
  checked_at: string | null;
  last_error: string | null;
}
type Integrations = Record<string, unknown> & {
  exchanges: (Probe & { venue: string; credentials: number; health: string | null })[];
};

function IntegrationsPanel() {
  const integrations = useApi<Integrations>('/api/v1/dashboard/integrations', undefined, 60_000);
  const d = integrations.data;
  const others = d
    ? Object.entries(d)
        .filter(
          ([key, value]) =>
            key !== 'exchanges' && value !== null && typeof value === 'object' && 'configured' in (value as object),
        )
        .map(([key, value]) => ({ name: key, ...(value as Probe) }))
    : [];
  const probeColumns = [
    { key: 'configured', label: 'Configured', render: (p: Probe) => (p.configured ? 'yes' : 'no') },
    {
      key: 'reachable',
      label: 'Reachable',
      render: (p: Probe) => (p.reachable === null ? 'not checked' : p.reachable ? 'yes' : 'no'),
    },
    { key: 'checked', label: 'Checked', render: (p: Probe) => time(p.checked_at) },
    { key: 'error', label: 'Last error', render: (p: Probe) => p.last_error ?? '' },
  ];
  return (
    <Section title="Integrations">
      <ErrorNote error={integrations.error} />
      <Loading loading={integrations.loading && !d} />
      {d ? (
        <>
          <DataTable
            caption="External systems"
            rows={others}
            rowKey={(p) => p.name}
            columns={[{ key: 'name', label: 'System', render: (p) => p.name }, ...probeColumns]}
          />
          <DataTable
            caption="Exchanges"
            rows={d.exchanges}
            rowKey={(e) => e.venue}
            columns={[
              { key: 'venue', label: 'Venue', render: (e) => e.venue },
              { key: 'credentials', label: 'Keys stored', numeric: true, render: (e) => num(e.credentials, 0) },
              { key: 'health', label: 'Health', render: (e) => e.health ?? '—' },
              ...probeColumns,
            ]}
          />
        </>
      ) : null}
    </Section>
  );
}

export default function AdminPage(props: { path: string; query: URLSearchParams }) {
  const section = props.path.split('/')[2] ?? '';
  const current = section ? `/admin/${section}` : '/admin';
  return (
    <div class="page">
      <h1>Admin</h1>
      <SubNav label="Admin sections" items={SECTIONS} current={current} />
      {section === '' ? <OverviewPanel /> : null}
      {section === 'users' ? <UsersPanel /> : null}
      {section === 'platform' ? <PlatformPanel /> : null}
      {section === 'command-center' ? <CommandCenterPanel /> : null}
      {section === 'keys' ? <KeysPanel /> : null}
      {section === 'retrieval' ? <RetrievalPanel /> : null}
      {section === 'venues' ? <VenuesPanel /> : null}
      {section === 'jobs' ? <JobsPanel /> : null}
      {section === 'webhooks' ? <WebhooksPanel /> : null}
      {section === 'integrations' ? <IntegrationsPanel /> : null}
    </div>
  );
}
