// Passkeys under Security (decision 204): listed, added on this device (or a security key, or a
// phone), renamed and removed. The first one takes the password (decision 681); adding a second one and
// removing one need a fresh second factor.
import { useState } from 'preact/hooks';
import { time } from '../../format.ts';
import { addPasskey, api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, TextInput, useAction, useApi } from '../../ui.tsx';
import { StepUpPrompt } from './step-up.tsx';

interface Passkey {
  id: string;
  name: string;
  created_at: string;
  last_used_at: string | null;
  backed_up: boolean;
}

/** `needsPassword`: the account has no second factor yet, so a passkey is added with the password. */
export function PasskeysPanel(props: { needsPassword: boolean; onChange?: () => void }) {
  const list = useApi<Passkey[]>('/api/auth/passkeys');
  const [name, setName] = useState('');
  const [password, setPassword] = useState('');
  const [editing, setEditing] = useState<Passkey | null>(null);
  const [newName, setNewName] = useState('');
  const action = useAction();
  const changed = async () => {
    await list.reload();
    props.onChange?.();
  };

  const add = async (event: Event) => {
    event.preventDefault();
    const ok = await action.run(async () => {
      await addPasskey(name.trim(), props.needsPassword ? password : undefined);
      return true;
    });
    if (ok) {
      setName('');
      setPassword('');
      await changed();
    }
  };
  const rename = async (event: Event) => {
    event.preventDefault();
    if (!editing) return;
    const ok = await action.run(() =>
      api(`/api/auth/passkeys/${editing.id}`, { method: 'PATCH', body: { name: newName.trim() } }),
    );
    if (ok) {
      setEditing(null);
      await changed();
    }
  };
  const remove = async (passkey: Passkey) => {
    if (!confirm(`Remove the passkey "${passkey.name}"?`)) return;
    await action.run(async () => {
      await api(`/api/auth/passkeys/${passkey.id}`, { method: 'DELETE' });
      return true;
    });
    await changed();
  };

  return (
    <Section title="Passkeys">
      <p>
        A passkey signs you in with this device's screen lock, a security key or your phone, and cannot be phished: your
        browser offers it on this site only.
      </p>
      <ErrorNote error={list.error} />
      <Loading loading={list.loading && !list.data} />
      {list.data ? (
        <DataTable
          caption="Your passkeys"
          rows={list.data}
          rowKey={(p) => p.id}
          empty="No passkeys."
          columns={[
            { key: 'name', label: 'Name', render: (p) => p.name },
            { key: 'created', label: 'Added', render: (p) => time(p.created_at) },
            { key: 'used', label: 'Last used', render: (p) => time(p.last_used_at) },
            { key: 'synced', label: 'Synced', render: (p) => (p.backed_up ? 'Yes' : 'No') },
            {
              key: 'actions',
              label: 'Actions',
              render: (p) => (
                <div class="row">
                  <button
                    type="button"
                    class="ghost"
                    aria-label={`Rename ${p.name}`}
                    onClick={() => {
                      setEditing(p);
                      setNewName(p.name);
                    }}
                  >
                    Rename
                  </button>
                  <button type="button" class="danger" aria-label={`Remove ${p.name}`} onClick={() => void remove(p)}>
                    Remove
                  </button>
                </div>
              ),
            },
          ]}
        />
      ) : null}
      {editing ? (
        <form onSubmit={rename}>
          <Field label={`New name for ${editing.name}`}>
            <input required maxLength={100} value={newName} onInput={(e) => setNewName(e.currentTarget.value)} />
          </Field>
          <div class="row">
            <button type="submit" disabled={action.pending}>
              Save name
            </button>
            <button type="button" class="ghost" onClick={() => setEditing(null)}>
              Cancel
            </button>
          </div>
        </form>
      ) : null}
      <form onSubmit={add}>
        <Field label="Passkey name" hint="Optional: e.g. the device that keeps it.">
          <input maxLength={100} value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </Field>
        {props.needsPassword ? (
          <Field label="Password for the passkey" hint="Your password: a first passkey turns two-factor on.">
            <TextInput
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onValue={setPassword}
            />
          </Field>
        ) : null}
        <button type="submit" disabled={action.pending}>
          Add a passkey
        </button>
      </form>
      <ErrorNote error={action.error} />
      <StepUpPrompt action={action} />
    </Section>
  );
}
