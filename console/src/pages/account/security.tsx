// API tokens and two-factor settings. Enrollment shows the QR code as an <img> of a data: URL (the
// console's CSP allows images from data:, never inline markup); the secret is shown beside it.
import { useState } from 'preact/hooks';
import { time } from '../../format.ts';
import { api, session } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, TextInput, useAction, useApi } from '../../ui.tsx';
import { PasskeysPanel } from './passkeys.tsx';
import { CodeInput, StepUpPrompt } from './step-up.tsx';

const SCOPES = [
  'market:read',
  'account:read',
  'account:write',
  'stream:read',
  'tracker:read',
  'tracker:write',
  'trade:read',
  'trade:write',
  'admin:read',
  'admin:write',
] as const;

interface Token {
  id: string;
  name: string;
  prefix: string;
  scopes: string[];
  expires_at: string;
  created_at: string;
  last_used_at: string | null;
}

export function TokensPanel() {
  const list = useApi<Token[]>('/api/auth/tokens');
  const [name, setName] = useState('');
  const [scopes, setScopes] = useState<string[]>(['market:read', 'account:read']);
  const [days, setDays] = useState(90);
  const [created, setCreated] = useState<string | null>(null);
  const action = useAction();
  const isAdmin = session.user?.role === 'admin';
  const create = async (event: Event) => {
    event.preventDefault();
    const answer = await action.run(() =>
      api<{ token: string }>('/api/auth/tokens', {
        method: 'POST',
        body: { name: name.trim(), scopes, expires_in_days: days },
      }),
    );
    if (answer) {
      setCreated(answer.token);
      setName('');
      await list.reload();
    }
  };
  const revoke = async (token: Token) => {
    if (!confirm(`Revoke the token "${token.name}"?`)) return;
    await action.run(() => api(`/api/auth/tokens/${token.id}`, { method: 'DELETE' }));
    await list.reload();
  };
  return (
    <>
      <Section title="API tokens">
        <ErrorNote error={list.error} />
        <Loading loading={list.loading && !list.data} />
        {list.data ? (
          <DataTable
            caption="Your API tokens (the tokens themselves are shown once, when made)"
            rows={list.data}
            rowKey={(t) => t.id}
            empty="No tokens."
            columns={[
              { key: 'name', label: 'Name', render: (t) => t.name },
              { key: 'prefix', label: 'Starts with', render: (t) => <code>{t.prefix}…</code> },
              { key: 'scopes', label: 'Scopes', render: (t) => t.scopes.join(', ') },
              { key: 'expires', label: 'Expires', render: (t) => time(t.expires_at) },
              { key: 'used', label: 'Last used', render: (t) => time(t.last_used_at) },
              {
                key: 'revoke',
                label: 'Revoke',
                render: (t) => (
                  <button type="button" class="danger" aria-label={`Revoke ${t.name}`} onClick={() => void revoke(t)}>
                    Revoke
                  </button>
                ),
              },
            ]}
          />
        ) : null}
      </Section>
      <Section title="Make a token">
        <form onSubmit={create}>
          <Field label="Token name">
            <TextInput required maxLength={100} value={name} onValue={setName} />
          </Field>
          <fieldset>
            <legend>Scopes</legend>
            {SCOPES.filter((scope) => isAdmin || !scope.startsWith('admin:')).map((scope) => (
              <label key={scope} class="check">
                <input
                  type="checkbox"
                  checked={scopes.includes(scope)}
                  onChange={(e) =>
                    setScopes(e.currentTarget.checked ? [...scopes, scope] : scopes.filter((s) => s !== scope))
                  }
                />{' '}
                {scope}{' '}
              </label>
            ))}
          </fieldset>
          <Field label="Days until it expires">
            <input
              type="number"
              min={1}
              max={365}
              value={days}
              onInput={(e) => setDays(Number(e.currentTarget.value))}
            />
          </Field>
          <ErrorNote error={action.error} />
          <StepUpPrompt action={action} />
          <button type="submit" disabled={action.pending}>
            Make token
          </button>
        </form>
        {created ? (
          <div role="status">
            <p>Your new token, shown this once:</p>
            <p class="secret">{created}</p>
          </div>
        ) : null}
      </Section>
    </>
  );
}

const svgDataUrl = (svg: string) => `data:image/svg+xml;base64,${btoa(unescape(encodeURIComponent(svg)))}`;

export function SecurityPanel() {
  const me = useApi<{ twoFactorEnabled: boolean; totpEnabled: boolean }>('/api/auth/me');
  const [password, setPassword] = useState('');
  const [code, setCode] = useState('');
  const [setup, setSetup] = useState<{ secret: string; qr_svg: string } | null>(null);
  const [recovery, setRecovery] = useState<string[] | null>(null);
  const action = useAction();
  // The authenticator app's own state: two-factor may be on through a passkey alone.
  const enabled = me.data?.totpEnabled ?? false;
  // Asked for both to enrol the app and to turn it off (one form at a time is shown).
  const passwordInput = (
    <TextInput type="password" autoComplete="current-password" required value={password} onValue={setPassword} />
  );

  const start = async (event: Event) => {
    event.preventDefault();
    const answer = await action.run(() =>
      api<{ secret: string; qr_svg: string }>('/api/auth/2fa/setup', { method: 'POST', body: { password } }),
    );
    if (answer) {
      setSetup(answer);
      setPassword('');
    }
  };
  const confirmCode = async (event: Event) => {
    event.preventDefault();
    const answer = await action.run(() =>
      api<{ recovery_codes: string[] }>('/api/auth/2fa/enable', { method: 'POST', body: { code: code.trim() } }),
    );
    if (answer) {
      setRecovery(answer.recovery_codes);
      setSetup(null);
      setCode('');
      await me.reload();
    }
  };
  const disable = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(() =>
      api('/api/auth/2fa/disable', { method: 'POST', body: { password, code: code.trim() } }),
    );
    if (ok) {
      setPassword('');
      setCode('');
      await me.reload();
    }
  };

  return (
    <>
      <Section title="Two-factor authentication">
        <ErrorNote error={me.error} />
        <p role="status">
          {me.data
            ? me.data.twoFactorEnabled
              ? 'Two-factor authentication is on.'
              : 'Two-factor authentication is off.'
            : 'Loading…'}
        </p>
        {me.data?.twoFactorEnabled && !enabled ? (
          <p>Your passkeys are your second factor; you may add an authenticator app too.</p>
        ) : null}
        {recovery ? (
          <div>
            <p>Save these recovery codes somewhere safe; each works once, and they are shown only now:</p>
            <ul class="secret">
              {recovery.map((c) => (
                <li key={c}>{c}</li>
              ))}
            </ul>
          </div>
        ) : null}
        {me.data && !enabled && !setup ? (
          <form onSubmit={start}>
            <Field label="Password" hint="Your password, to start enrolling an authenticator app.">
              {passwordInput}
            </Field>
            <button type="submit" disabled={action.pending}>
              Set up two-factor
            </button>
          </form>
        ) : null}
        {setup ? (
          <form onSubmit={confirmCode}>
            <p>Scan this code with your authenticator app, or type the secret into it.</p>
            <img class="qr" src={svgDataUrl(setup.qr_svg)} alt="QR code of the two-factor secret" />
            <section class="secret" aria-label="Two-factor secret">
              {setup.secret}
            </section>
            <Field label="Authentication code">
              <CodeInput value={code} onValue={setCode} />
            </Field>
            <button type="submit" disabled={action.pending}>
              Turn on two-factor
            </button>
          </form>
        ) : null}
        {enabled ? (
          <form onSubmit={disable}>
            <h3>Turn the authenticator app off</h3>
            <Field label="Password">{passwordInput}</Field>
            <Field label="Authentication code">
              <CodeInput value={code} onValue={setCode} />
            </Field>
            <button type="submit" class="danger" disabled={action.pending}>
              Turn off two-factor
            </button>
          </form>
        ) : null}
        <ErrorNote error={action.error} />
        <StepUpPrompt action={action} />
      </Section>
      <PasskeysPanel needsPassword={me.data ? !me.data.twoFactorEnabled : false} onChange={() => void me.reload()} />
    </>
  );
}
