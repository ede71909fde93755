// Users: search, filters and paging; one user's actions (suspend, activate, password reset) and
// activity; bulk actions over the selected, and the CSV export.
import { useState } from 'preact/hooks';
import { num, time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';
import { StepUpPrompt } from '../account/step-up.tsx';

interface User {
  id: string;
  email: string;
  firstName: string;
  lastName: string;
  role: string;
  subscriptionTier: string;
  status: string;
  createdAt: string;
  lastLogin: string | null;
  twoFactorEnabled: boolean;
  totalTrades: number;
}
interface Activity {
  id: string;
  action: string;
  actor_type: string;
  ip: string | null;
  created_at: string;
}
const PAGE = 20;
/** The count a search's total stops at (the API's SEARCH_TOTAL_BOUND, decision 310). */
const SEARCH_TOTAL_BOUND = 1_000;

function UserActivity(props: { user: User }) {
  const activity = useApi<Activity[]>(`/api/admin/users/${props.user.id}/activity`, { limit: 20 });
  return (
    <Section title={`Activity of ${props.user.email}`}>
      <ErrorNote error={activity.error} />
      {activity.data ? (
        <DataTable
          caption={`Latest activity of ${props.user.email}`}
          rows={activity.data}
          rowKey={(a) => a.id}
          empty="No activity recorded."
          columns={[
            { key: 'when', label: 'When', render: (a) => time(a.created_at) },
            { key: 'action', label: 'Action', render: (a) => a.action },
            { key: 'actor', label: 'By', render: (a) => a.actor_type },
            { key: 'ip', label: 'Address', render: (a) => a.ip ?? '' },
          ]}
        />
      ) : (
        <Loading loading={activity.loading} />
      )}
    </Section>
  );
}

/** Fetches the export with the admin's token and hands it to the browser as a file. */
async function download(url: string, name: string): Promise<void> {
  const text = await api<string>(url);
  const link = document.createElement('a');
  link.href = URL.createObjectURL(new Blob([text], { type: 'text/csv' }));
  link.download = name;
  link.click();
  setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
}

export function UsersPanel() {
  const [search, setSearch] = useState('');
  const [role, setRole] = useState('');
  const [status, setStatus] = useState('');
  const [tier, setTier] = useState('');
  const [page, setPage] = useState(1);
  const [selected, setSelected] = useState<string[]>([]);
  const [viewing, setViewing] = useState<User | null>(null);
  const [message, setMessage] = useState<string | null>(null);
  const list = useApi<{ users: User[]; total: number }>('/api/admin/users', {
    search: search.trim() || undefined,
    role,
    status,
    subscriptionTier: tier,
    page,
    limit: PAGE,
  });
  const action = useAction();
  const filter = (set: (value: string) => void) => (e: { currentTarget: { value: string } }) => {
    set(e.currentTarget.value);
    setPage(1);
    setSelected([]);
  };
  // A search counts its matches up to SEARCH_TOTAL_BOUND (decision 310): at the bound the count means
  // "that many or more", so the pages go on while they come back full.
  const bounded = search.trim() !== '' && (list.data?.total ?? 0) >= SEARCH_TOTAL_BOUND;
  const pages = list.data ? Math.max(1, Math.ceil(list.data.total / PAGE)) : 1;
  const hasNext = bounded ? list.data?.users.length === PAGE : page < pages;
  const counted = list.data ? `${num(list.data.total, 0)}${bounded ? '+' : ''} users` : '';

  const setUserStatus = async (user: User, next: 'active' | 'suspended') => {
    const done = await action.run(() =>
      api(`/api/admin/users/${user.id}`, { method: 'PATCH', body: { status: next } }),
    );
    if (done) setMessage(`${user.email} is now ${next}.`);
    await list.reload();
  };
  const resetPassword = async (user: User) => {
    if (!confirm(`Reset the password of ${user.email}? Their sessions end and the new password is e-mailed to them.`))
      return;
    const done = await action.run(() =>
      api<{ emailSent: boolean }>('/api/admin/users/reset-password', {
        method: 'POST',
        query: { userId: user.id, email: user.email, sendEmail: true },
      }),
    );
    if (done) setMessage(`The password of ${user.email} was reset${done.emailSent ? ' and e-mailed to them' : ''}.`);
  };
  const bulk = async (kind: 'activate' | 'suspend' | 'delete' | 'export') => {
    if (kind === 'delete' && !confirm(`Delete ${selected.length} users?`)) return;
    const done = await action.run(() =>
      api<{ processed: number; skipped: { reason: string }[]; notFound: string[]; exportUrl?: string }>(
        '/api/admin/users/bulk-action',
        { method: 'POST', body: { userIds: selected, action: kind } },
      ),
    );
    if (!done) return;
    if (kind === 'export' && done.exportUrl) {
      await action.run(() => download(done.exportUrl!, 'users.csv'));
      setMessage(`Exported ${done.processed} users as CSV.`);
    } else {
      setMessage(
        `${kind}: ${done.processed} processed${done.skipped.length ? `, ${done.skipped.length} skipped (${done.skipped.map((s) => s.reason).join('; ')})` : ''}${done.notFound.length ? `, ${done.notFound.length} not found` : ''}.`,
      );
    }
    setSelected([]);
    await list.reload();
  };
  const toggle = (id: string, on: boolean) => setSelected(on ? [...selected, id] : selected.filter((s) => s !== id));

  return (
    <>
      <Section title="Users">
        <div class="row">
          <Field label="Search users">
            <input type="search" value={search} placeholder="e-mail or name" onInput={filter(setSearch)} />
          </Field>
          <Field label="Role">
            <select value={role} onChange={filter(setRole)}>
              <option value="">any</option>
              <option value="user">user</option>
              <option value="admin">admin</option>
            </select>
          </Field>
          <Field label="Status">
            <select value={status} onChange={filter(setStatus)}>
              <option value="">any (not deleted)</option>
              <option value="active">active</option>
              <option value="suspended">suspended</option>
              <option value="deleted">deleted</option>
            </select>
          </Field>
          <Field label="Tier">
            <select value={tier} onChange={filter(setTier)}>
              <option value="">any</option>
              {['free', 'basic', 'pro', 'enterprise'].map((t) => (
                <option key={t} value={t}>
                  {t}
                </option>
              ))}
            </select>
          </Field>
        </div>
        <fieldset class="row" aria-label="Bulk actions">
          <span class="muted">{`${selected.length} selected`}</span>
          {(['activate', 'suspend', 'delete', 'export'] as const).map((kind) => (
            <button
              type="button"
              key={kind}
              class={kind === 'delete' ? 'danger' : 'ghost'}
              disabled={selected.length === 0 || action.pending}
              onClick={() => void bulk(kind)}
            >
              {kind === 'export' ? 'Export CSV' : `${kind[0]!.toUpperCase()}${kind.slice(1)} selected`}
            </button>
          ))}
        </fieldset>
        {message ? (
          <p role="status" class="notice">
            {message}
          </p>
        ) : null}
        <ErrorNote error={list.error ?? action.error} />
        {/* A change to other accounts wants the admin's fresh second factor (decision 202). */}
        <StepUpPrompt action={action} />
        <Loading loading={list.loading && !list.data} />
        {list.data ? (
          <>
            <DataTable
              caption="Users, newest first"
              rows={list.data.users}
              rowKey={(u) => u.id}
              rowClass={(u) => (selected.includes(u.id) ? 'selected' : undefined)}
              columns={[
                {
                  key: 'select',
                  label: 'Select',
                  render: (u) => (
                    <input
                      type="checkbox"
                      aria-label={`Select ${u.email}`}
                      checked={selected.includes(u.id)}
                      onChange={(e) => toggle(u.id, e.currentTarget.checked)}
                    />
                  ),
                },
                { key: 'email', label: 'E-mail', render: (u) => u.email },
                { key: 'name', label: 'Name', render: (u) => `${u.firstName} ${u.lastName}`.trim() },
                { key: 'role', label: 'Role', render: (u) => u.role },
                { key: 'tier', label: 'Tier', render: (u) => u.subscriptionTier },
                {
                  key: 'status',
                  label: 'Status',
                  render: (u) => <span class={u.status === 'active' ? '' : 'down'}>{u.status}</span>,
                },
                { key: '2fa', label: 'Two-factor', render: (u) => (u.twoFactorEnabled ? 'on' : 'off') },
                { key: 'trades', label: 'Trades', numeric: true, render: (u) => num(u.totalTrades, 0) },
                { key: 'login', label: 'Last sign-in', render: (u) => time(u.lastLogin) },
                {
                  key: 'actions',
                  label: 'Actions',
                  render: (u) => (
                    <div class="row">
                      {u.status === 'active' ? (
                        <button
                          type="button"
                          class="ghost"
                          aria-label={`Suspend ${u.email}`}
                          onClick={() => void setUserStatus(u, 'suspended')}
                        >
                          Suspend
                        </button>
                      ) : (
                        <button
                          type="button"
                          class="ghost"
                          aria-label={`Activate ${u.email}`}
                          onClick={() => void setUserStatus(u, 'active')}
                        >
                          Activate
                        </button>
                      )}
                      <button
                        type="button"
                        class="ghost"
                        aria-label={`Reset password of ${u.email}`}
                        onClick={() => void resetPassword(u)}
                      >
                        Reset password
                      </button>
                      <button
                        type="button"
                        class="ghost"
                        aria-label={`Activity of ${u.email}`}
                        onClick={() => setViewing(u)}
                      >
                        Activity
                      </button>
                    </div>
                  ),
                },
              ]}
            />
            <div class="row">
              <button type="button" class="ghost" disabled={page <= 1} onClick={() => setPage(page - 1)}>
                Previous page
              </button>
              <span role="status">
                {bounded ? `Page ${page} · ${counted}` : `Page ${page} of ${pages} · ${counted}`}
              </span>
              <button type="button" class="ghost" disabled={!hasNext} onClick={() => setPage(page + 1)}>
                Next page
              </button>
            </div>
          </>
        ) : null}
      </Section>
      {viewing ? <UserActivity key={viewing.id} user={viewing} /> : null}
    </>
  );
}
