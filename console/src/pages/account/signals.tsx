// TradingView signal hooks (the URL and secret shown once, with copy buttons) and the notification
// channels and events a user chooses.
import { useState } from 'preact/hooks';
import { time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';
import { StepUpPrompt } from './step-up.tsx';

interface Hook {
  id: string;
  name: string;
  mode: 'paper' | 'live';
  exchange: string;
  url: string;
  alerts_accepted: number;
  alerts_refused: number;
  last_alert_at: string | null;
  last_error: string | null;
}

function CopyButton(props: { value: string; label: string }) {
  const [copied, setCopied] = useState(false);
  const copy = async () => {
    await navigator.clipboard.writeText(props.value).catch(() => undefined);
    setCopied(true);
  };
  return (
    <button type="button" aria-label={props.label} onClick={() => void copy()}>
      {copied ? 'Copied' : 'Copy'}
    </button>
  );
}

export function SignalHooksPanel() {
  const list = useApi<{ hooks: Hook[] }>('/api/signals/hooks');
  const [name, setName] = useState('');
  const [mode, setMode] = useState<'paper' | 'live'>('paper');
  const [made, setMade] = useState<{ url: string; secret: string } | null>(null);
  const action = useAction();
  const change = async (run: () => Promise<{ url: string; secret: string } | null>) => {
    const answer = await action.run(run);
    if (answer) setMade(answer);
    await list.reload();
  };
  const create = async (event: Event) => {
    event.preventDefault();
    await change(() => api('/api/signals/hooks', { method: 'POST', body: { name: name.trim(), mode } }));
    setName('');
  };
  const rotate = (hook: Hook) => change(() => api(`/api/signals/hooks/${hook.id}/rotate`, { method: 'POST' }));
  const remove = async (hook: Hook) => {
    if (!confirm(`Remove the hook "${hook.name}"? Its alerts are refused from now on.`)) return;
    await change(async () => {
      await api(`/api/signals/hooks/${hook.id}`, { method: 'DELETE' });
      return null;
    });
  };
  return (
    <>
      <Section title="Signal hooks">
        <ErrorNote error={list.error} />
        <Loading loading={list.loading && !list.data} />
        {list.data ? (
          <DataTable
            caption="Your TradingView alert hooks (secrets are shown once, when made or rotated)"
            rows={list.data.hooks}
            rowKey={(h) => h.id}
            empty="No hooks."
            columns={[
              { key: 'name', label: 'Name', render: (h) => h.name },
              { key: 'mode', label: 'Mode', render: (h) => `${h.mode} on ${h.exchange}` },
              { key: 'accepted', label: 'Orders made', render: (h) => String(h.alerts_accepted) },
              { key: 'refused', label: 'Refused', render: (h) => String(h.alerts_refused) },
              { key: 'last', label: 'Last alert', render: (h) => time(h.last_alert_at) },
              { key: 'error', label: 'Last error', render: (h) => h.last_error ?? '—' },
              {
                key: 'actions',
                label: 'Actions',
                render: (h) => (
                  <span class="row">
                    <button type="button" aria-label={`New secret for ${h.name}`} onClick={() => void rotate(h)}>
                      New secret
                    </button>
                    <button type="button" class="danger" aria-label={`Remove ${h.name}`} onClick={() => void remove(h)}>
                      Remove
                    </button>
                  </span>
                ),
              },
            ]}
          />
        ) : null}
        {made ? (
          <div role="status">
            <p>
              Give TradingView this webhook URL, and put the secret in the alert message. The secret is shown this once.
            </p>
            <p class="secret">
              {made.url} <CopyButton value={made.url} label="Copy the webhook URL" />
            </p>
            <p class="secret">
              {made.secret} <CopyButton value={made.secret} label="Copy the secret" />
            </p>
          </div>
        ) : null}
      </Section>
      <Section title="Make a hook">
        <form onSubmit={create}>
          <Field label="Hook name">
            <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="Mode" hint="A live hook needs two-factor on your account, and a second factor given recently.">
            <select value={mode} onChange={(e) => setMode(e.currentTarget.value as 'paper' | 'live')}>
              <option value="paper">Paper</option>
              <option value="live">Live</option>
            </select>
          </Field>
          <ErrorNote error={action.error} />
          <StepUpPrompt action={action} />
          <button type="submit" disabled={action.pending}>
            Make hook
          </button>
        </form>
      </Section>
    </>
  );
}

const EVENTS = ['order.filled', 'order.rejected', 'order.canceled', 'signal.refused', 'trading.halted', 'daily_loss'];

interface Channel {
  type: 'email' | 'telegram' | 'webhook';
  chat_id?: string;
  /** Telegram: proven the user's through the bot's link; an unlinked chat is told nothing. */
  linked?: boolean;
  url?: string;
  format?: 'slack' | 'discord';
}

/** The account's address is mailed nothing until it is proven: a code mailed to it, sent back here (decision 845). */
function EmailVerification() {
  const me = useApi<{ emailVerified: boolean }>('/api/auth/me');
  const action = useAction();
  const [mailed, setMailed] = useState(false);
  const [code, setCode] = useState('');
  if (!me.data || me.data.emailVerified) return null;
  const request = async () => {
    if (await action.run(() => api('/api/auth/email/verify-request', { method: 'POST' }))) setMailed(true);
  };
  const verify = async () => {
    const done = await action.run(() =>
      api('/api/auth/email/verify', { method: 'POST', body: { token: code.trim() } }),
    );
    if (done) me.setData({ emailVerified: true });
  };
  return (
    <div class="field">
      <p>Your address is not verified: nothing is mailed to it until it is.</p>
      <button type="button" disabled={action.pending} onClick={() => void request()}>
        Mail me a code
      </button>
      {mailed ? (
        <>
          <Field label="Verification code" hint="From the mail just sent; it works once, for 24 hours.">
            <input value={code} onInput={(e) => setCode(e.currentTarget.value)} />
          </Field>
          <button type="button" disabled={action.pending || !code.trim()} onClick={() => void verify()}>
            Verify
          </button>
        </>
      ) : null}
      <ErrorNote error={action.error} />
    </div>
  );
}

export function NotificationsPanel() {
  const current = useApi<{ channels: Channel[]; events: string[] }>('/api/notifications/preferences');
  const action = useAction();
  const [sent, setSent] = useState<number | null>(null);
  const [link, setLink] = useState<{ url: string; expires_at: string } | null>(null);
  const [draft, setDraft] = useState<{ channels: Channel[]; events: string[] } | null>(null);
  const shown = draft ?? current.data;
  const channel = (type: Channel['type']) => shown?.channels.find((c) => c.type === type);
  const setChannel = (type: Channel['type'], value: Channel | null) => {
    if (!shown) return;
    const others = shown.channels.filter((c) => c.type !== type);
    setDraft({ ...shown, channels: value ? [...others, value] : others });
  };
  const save = async (event: Event) => {
    event.preventDefault();
    if (!shown) return;
    const answer = await action.run(() =>
      api<{ channels: Channel[]; events: string[] }>('/api/notifications/preferences', { method: 'PUT', body: shown }),
    );
    if (answer) {
      current.setData(answer);
      setDraft(null);
    }
  };
  const test = async () => {
    const answer = await action.run(() => api<{ queued: number }>('/api/notifications/test', { method: 'POST' }));
    if (answer) setSent(answer.queued);
  };
  const askLink = async () => {
    const answer = await action.run(() =>
      api<{ url: string; expires_at: string }>('/api/notifications/telegram/link', { method: 'POST' }),
    );
    if (answer) setLink(answer);
  };
  const webhook = channel('webhook');
  const telegram = channel('telegram');
  return (
    <Section title="Notifications">
      <ErrorNote error={current.error} />
      <Loading loading={current.loading && !current.data} />
      {shown ? (
        <form onSubmit={save}>
          <fieldset>
            <legend>Channels</legend>
            <label class="check">
              <input
                type="checkbox"
                checked={Boolean(channel('email'))}
                onChange={(e) => setChannel('email', e.currentTarget.checked ? { type: 'email' } : null)}
              />{' '}
              Mail to your account address
            </label>
            <EmailVerification />
            <div class="field">
              <span>Telegram</span>
              {telegram ? (
                <label class="check">
                  <input type="checkbox" checked onChange={() => setChannel('telegram', null)} /> Chat{' '}
                  {telegram.chat_id}{' '}
                  {telegram.linked
                    ? '(linked)'
                    : '(not linked: told nothing until you link it, nor later of what it missed)'}
                </label>
              ) : null}
              <button type="button" disabled={action.pending} onClick={() => void askLink()}>
                Link a Telegram chat
              </button>
              {link ? (
                <p role="status">
                  Open{' '}
                  <a href={link.url} target="_blank" rel="noreferrer">
                    {link.url}
                  </a>{' '}
                  in Telegram and press Start before {time(link.expires_at)}; then reload this page. The chat is told of
                  what happens from then on, not of what came before.
                </p>
              ) : null}
            </div>
            <Field label="Webhook URL" hint="A Slack or Discord incoming webhook (https); empty: none.">
              <input
                type="url"
                value={webhook?.url ?? ''}
                onInput={(e) => {
                  const value = e.currentTarget.value.trim();
                  setChannel(
                    'webhook',
                    value ? { type: 'webhook', url: value, format: webhook?.format ?? 'slack' } : null,
                  );
                }}
              />
            </Field>
            <Field label="Webhook format">
              <select
                value={webhook?.format ?? 'slack'}
                disabled={!webhook}
                onChange={(e) =>
                  webhook && setChannel('webhook', { ...webhook, format: e.currentTarget.value as 'slack' | 'discord' })
                }
              >
                <option value="slack">Slack</option>
                <option value="discord">Discord</option>
              </select>
            </Field>
          </fieldset>
          <fieldset>
            <legend>Tell me of</legend>
            {EVENTS.map((name) => (
              <label key={name} class="check">
                <input
                  type="checkbox"
                  checked={shown.events.includes(name)}
                  onChange={(e) =>
                    setDraft({
                      ...shown,
                      events: e.currentTarget.checked
                        ? [...shown.events, name]
                        : shown.events.filter((n) => n !== name),
                    })
                  }
                />{' '}
                {name}{' '}
              </label>
            ))}
          </fieldset>
          <ErrorNote error={action.error} />
          <div class="row">
            <button type="submit" disabled={action.pending}>
              Save
            </button>
            <button type="button" disabled={action.pending} onClick={() => void test()}>
              Send a test
            </button>
          </div>
          {sent !== null ? <p role="status">A test was queued on {sent} channel(s).</p> : null}
        </form>
      ) : null}
    </Section>
  );
}
