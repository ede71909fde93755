// Exchange credentials: add (checked against the venue first), masked keys, delete; balance and trade
// syncs with their progress and results.
import { useEffect, useState } from 'preact/hooks';
import { num, time } from '../../format.ts';
import { onAccountEvent } from '../../live.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';
import { StepUpPrompt } from './step-up.tsx';

export interface Credential {
  id: string;
  exchange_name: string;
  credential_name: string;
  is_active: boolean;
  validation_status: string;
  validation_error: string | null;
  last_validation: string | null;
  last_used: string | null;
}
interface Supported {
  exchanges: { id: string; name: string; requires_passphrase: boolean }[];
  default_exchange: string;
}
interface Validation {
  valid: boolean;
  cause: string | null;
  message: string;
  permissions: { read: boolean; trade: boolean; withdraw: boolean } | null;
  warnings: string[];
  currencies_with_balance: number | null;
  updated_credential_ids: string[];
}

function MaskedKey(props: { id: string }) {
  const detail = useApi<{ api_key_masked: string }>(`/api/exchange/credentials/${props.id}`);
  return <code>{detail.data?.api_key_masked ?? '…'}</code>;
}

function AddCredential(props: { onAdded: () => void }) {
  const supported = useApi<Supported>('/api/exchange/supported');
  const [venue, setVenue] = useState('binance');
  const [name, setName] = useState('Default');
  const [apiKey, setApiKey] = useState('');
  const [secret, setSecret] = useState('');
  const [passphrase, setPassphrase] = useState('');
  const [check, setCheck] = useState<Validation | null>(null);
  const action = useAction();
  const needsPassphrase = supported.data?.exchanges.find((e) => e.id === venue)?.requires_passphrase ?? false;
  const keys = () => ({
    api_key: apiKey.trim(),
    api_secret: secret.trim(),
    ...(needsPassphrase ? { api_passphrase: passphrase } : {}),
  });

  const validate = async () => {
    const answer = await action.run(() =>
      api<Validation>('/api/exchange/validate', { method: 'POST', body: { exchange: venue, ...keys() } }),
    );
    if (!answer) return;
    setCheck(answer);
    // A stored key checked again: its validation status in the list changed.
    if (answer.updated_credential_ids.length > 0) props.onAdded();
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const added = await action.run(() =>
      api('/api/exchange/credentials', {
        method: 'POST',
        body: { exchange_name: venue, credential_name: name.trim(), ...keys() },
      }),
    );
    if (added) {
      setApiKey('');
      setSecret('');
      setPassphrase('');
      setCheck(null);
      props.onAdded();
    }
  };
  return (
    <Section title="Add an exchange key">
      <p class="muted">
        Use a read-only key. It is stored encrypted and never shown again; only a masked form is. To check a stored key
        again, enter it here and press Check key: its status in the list is updated.
      </p>
      <form onSubmit={add}>
        <div class="grid two">
          <Field label="Exchange">
            <select value={venue} onChange={(e) => setVenue(e.currentTarget.value)}>
              {(supported.data?.exchanges ?? [{ id: 'binance', name: 'Binance', requires_passphrase: false }]).map(
                (e) => (
                  <option key={e.id} value={e.id}>
                    {e.name}
                  </option>
                ),
              )}
            </select>
          </Field>
          <Field label="Name">
            <input required maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
          </Field>
          <Field label="API key">
            <input
              required
              autoComplete="off"
              spellcheck={false}
              value={apiKey}
              onInput={(e) => setApiKey(e.currentTarget.value)}
            />
          </Field>
          <Field label="API secret">
            <input
              required
              type="password"
              autoComplete="off"
              value={secret}
              onInput={(e) => setSecret(e.currentTarget.value)}
            />
          </Field>
          {needsPassphrase ? (
            <Field label="Passphrase">
              <input
                required
                type="password"
                autoComplete="off"
                value={passphrase}
                onInput={(e) => setPassphrase(e.currentTarget.value)}
              />
            </Field>
          ) : null}
        </div>
        {check ? (
          <p role="status" class={check.valid ? 'up' : 'error'}>
            {check.valid ? 'The key works' : 'The key does not work'}: {check.message}
            {check.permissions
              ? ` (read ${check.permissions.read ? 'yes' : 'no'}, trade ${check.permissions.trade ? 'yes' : 'no'}, withdraw ${check.permissions.withdraw ? 'yes' : 'no'})`
              : ''}
            {check.warnings.length ? ` · ${check.warnings.join(' · ')}` : ''}
            {check.updated_credential_ids.length
              ? ` · ${check.updated_credential_ids.length} of your stored keys hold it and were updated`
              : ''}
          </p>
        ) : null}
        <ErrorNote error={action.error} />
        <StepUpPrompt action={action} />
        <div class="row">
          <button
            type="button"
            class="ghost"
            disabled={action.pending || !apiKey || !secret}
            onClick={() => void validate()}
          >
            Check key
          </button>
          <button type="submit" disabled={action.pending}>
            Add key
          </button>
        </div>
      </form>
    </Section>
  );
}

interface SyncState {
  running: 'balance' | 'trades' | null;
  result: string | null;
  failed: boolean;
}

function SyncButtons(props: { credential: Credential }) {
  const [state, setState] = useState<SyncState>({ running: null, result: null, failed: false });
  const { credential } = props;
  const run = async (kind: 'balance' | 'trades') => {
    setState({ running: kind, result: null, failed: false });
    try {
      if (kind === 'balance') {
        const answer = await api<{ success: boolean; currencies_synced: number; error: string | null }>(
          '/api/exchange/balance/sync',
          { method: 'POST', query: { exchange: credential.exchange_name, credential_id: credential.id } },
        );
        setState({
          running: null,
          failed: !answer.success,
          result: answer.success
            ? `Balance synced: ${answer.currencies_synced} currencies`
            : `Balance sync failed: ${answer.error}`,
        });
      } else {
        const answer = await api<{
          success: boolean;
          trades_synced: number;
          trades_duplicate: number;
          symbols_synced: string[];
          error: string | null;
        }>('/api/exchange/trades/sync', {
          method: 'POST',
          query: { exchange: credential.exchange_name, credential_id: credential.id },
        });
        setState({
          running: null,
          failed: !answer.success,
          result: answer.success
            ? `Trades synced: ${answer.trades_synced} new, ${answer.trades_duplicate} known, over ${answer.symbols_synced.length} markets`
            : `Trade sync failed: ${answer.error}`,
        });
      }
    } catch (caught) {
      setState({ running: null, failed: true, result: caught instanceof Error ? caught.message : String(caught) });
    }
  };
  return (
    <div class="row">
      <button
        type="button"
        disabled={state.running !== null}
        onClick={() => void run('balance')}
        aria-label={`Sync balance of ${credential.credential_name}`}
      >
        Sync balance
      </button>
      <button
        type="button"
        disabled={state.running !== null}
        onClick={() => void run('trades')}
        aria-label={`Sync trades of ${credential.credential_name}`}
      >
        Sync trades
      </button>
      {state.running ? (
        <span role="status">
          <progress class="progress" aria-label={`Syncing ${state.running}`} /> Syncing {state.running}…
        </span>
      ) : null}
      {state.result ? (
        <span role="status" class={state.failed ? 'error' : 'up'}>
          {state.result}
        </span>
      ) : null}
    </div>
  );
}

export function ExchangesPanel() {
  const list = useApi<{ credentials: Credential[] }>('/api/exchange/credentials');
  const remove = useAction();
  useEffect(
    () =>
      onAccountEvent((event) => {
        if (event.type.startsWith('credential.')) void list.reload();
      }),
    [],
  );
  const del = async (credential: Credential) => {
    if (!confirm(`Delete the key "${credential.credential_name}" (${credential.exchange_name})?`)) return;
    await remove.run(() => api(`/api/exchange/credentials/${credential.id}`, { method: 'DELETE' }));
    await list.reload();
  };
  return (
    <>
      <Section title="Your exchange keys">
        <ErrorNote error={list.error ?? remove.error} />
        <Loading loading={list.loading && !list.data} />
        {list.data ? (
          <DataTable
            caption="Exchange keys"
            rows={list.data.credentials}
            rowKey={(c) => c.id}
            empty="No keys yet: add one below."
            columns={[
              { key: 'name', label: 'Name', render: (c) => c.credential_name },
              { key: 'venue', label: 'Exchange', render: (c) => c.exchange_name },
              { key: 'key', label: 'Key', render: (c) => <MaskedKey id={c.id} /> },
              {
                key: 'status',
                label: 'Validation',
                render: (c) => (
                  <span
                    class={c.validation_status === 'valid' ? 'up' : c.validation_status === 'pending' ? '' : 'down'}
                  >
                    {c.validation_status}
                    {c.validation_error ? `: ${c.validation_error}` : ''}
                  </span>
                ),
              },
              { key: 'checked', label: 'Checked', render: (c) => time(c.last_validation) },
              { key: 'sync', label: 'Sync', render: (c) => <SyncButtons credential={c} /> },
              {
                key: 'delete',
                label: 'Delete',
                render: (c) => (
                  <button
                    type="button"
                    class="danger"
                    onClick={() => void del(c)}
                    aria-label={`Delete ${c.credential_name}`}
                  >
                    Delete
                  </button>
                ),
              },
            ]}
          />
        ) : null}
        <p class="muted">{list.data ? `${num(list.data.credentials.length, 0)} keys` : ''}</p>
      </Section>
      <AddCredential onAdded={() => void list.reload()} />
    </>
  );
}
