// Provider API keys (rotation reminders, tests, rotation) and the retrieval settings, where a change
// made meanwhile by someone else is shown beside yours rather than lost (the `version` check).
import { useEffect, useState } from 'preact/hooks';
import { num, time } from '../../format.ts';
import { api, ApiError } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, Select, TextInput, useAction, useApi } from '../../ui.tsx';

interface ProviderKey {
  id: string;
  provider: string;
  key_prefix: string;
  is_active: boolean;
  last_used_at: string | null;
  usage_count: number;
  last_rotated_at: string | null;
  rotation_reminder_days: number;
  next_rotation_date: string;
  notes: string | null;
}
const PROVIDERS = ['openai', 'anthropic', 'google', 'mistral', 'groq', 'tavily', 'serper'];

export function KeysPanel() {
  const keys = useApi<ProviderKey[]>('/api/v1/admin/api-keys', { include_inactive: true });
  const reminders = useApi<
    { id: string; provider: string; key_prefix: string; next_rotation_date: string; days_until_rotation: number }[]
  >('/api/v1/admin/api-keys/rotation-reminders');
  const [provider, setProvider] = useState('openai');
  const [secret, setSecret] = useState('');
  const [days, setDays] = useState(90);
  const [result, setResult] = useState<string | null>(null);
  const action = useAction();
  const reload = async () => {
    await keys.reload();
    await reminders.reload();
  };
  const add = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api('/api/v1/admin/api-keys', {
        method: 'POST',
        body: { provider, api_key: secret.trim(), rotation_reminder_days: days },
      }),
    );
    if (done) {
      setSecret('');
      await reload();
    }
  };
  const test = async (key: ProviderKey) => {
    const answer = await action.run(() =>
      api<{ is_valid: boolean; error_message: string | null; response_time_ms: number }>(
        `/api/v1/admin/api-keys/${key.id}/test`,
        { method: 'POST' },
      ),
    );
    if (answer)
      setResult(
        `${key.provider} ${key.key_prefix}…: ${answer.is_valid ? 'works' : `refused (${answer.error_message})`} in ${num(answer.response_time_ms, 0)} ms`,
      );
  };
  const markRotated = async (key: ProviderKey) => {
    await action.run(() =>
      api(`/api/v1/admin/api-keys/${key.id}`, { method: 'PUT', body: { last_rotated_at: new Date().toISOString() } }),
    );
    await reload();
  };
  const remove = async (key: ProviderKey) => {
    if (!confirm(`Delete the ${key.provider} key ${key.key_prefix}…?`)) return;
    await action.run(() => api(`/api/v1/admin/api-keys/${key.id}`, { method: 'DELETE' }));
    await reload();
  };
  return (
    <>
      <Section title="Rotation reminders">
        <ErrorNote error={reminders.error} />
        {reminders.data ? (
          <DataTable
            caption="Active keys due for rotation"
            rows={reminders.data}
            rowKey={(r) => r.id}
            empty="No key is due for rotation."
            columns={[
              { key: 'provider', label: 'Provider', render: (r) => r.provider },
              { key: 'prefix', label: 'Key', render: (r) => <code>{r.key_prefix}…</code> },
              { key: 'due', label: 'Rotate by', render: (r) => time(r.next_rotation_date) },
              {
                key: 'days',
                label: 'Days left',
                numeric: true,
                render: (r) => (
                  <span class={r.days_until_rotation <= 0 ? 'down' : ''}>{num(r.days_until_rotation, 0)}</span>
                ),
              },
            ]}
          />
        ) : (
          <Loading loading={reminders.loading} />
        )}
      </Section>
      <Section title="Provider keys">
        <ErrorNote error={keys.error ?? action.error} />
        {result ? (
          <p role="status" class="notice">
            {result}
          </p>
        ) : null}
        {keys.data ? (
          <DataTable
            caption="Provider API keys (stored encrypted; only their first characters are shown)"
            rows={keys.data}
            rowKey={(k) => k.id}
            empty="No provider keys."
            columns={[
              { key: 'provider', label: 'Provider', render: (k) => k.provider },
              { key: 'prefix', label: 'Key', render: (k) => <code>{k.key_prefix}…</code> },
              { key: 'active', label: 'Active', render: (k) => (k.is_active ? 'yes' : 'no') },
              { key: 'used', label: 'Uses', numeric: true, render: (k) => num(k.usage_count, 0) },
              { key: 'rotated', label: 'Rotated', render: (k) => time(k.last_rotated_at) },
              { key: 'next', label: 'Next rotation', render: (k) => time(k.next_rotation_date) },
              {
                key: 'actions',
                label: 'Actions',
                render: (k) => (
                  <div class="row">
                    <button
                      type="button"
                      class="ghost"
                      aria-label={`Test the ${k.provider} key ${k.key_prefix}`}
                      onClick={() => void test(k)}
                    >
                      Test
                    </button>
                    <button
                      type="button"
                      class="ghost"
                      aria-label={`Mark rotated: the ${k.provider} key ${k.key_prefix}`}
                      onClick={() => void markRotated(k)}
                    >
                      Mark rotated
                    </button>
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Delete the ${k.provider} key ${k.key_prefix}`}
                      onClick={() => void remove(k)}
                    >
                      Delete
                    </button>
                  </div>
                ),
              },
            ]}
          />
        ) : (
          <Loading loading={keys.loading} />
        )}
        <form class="row" onSubmit={add}>
          <Field label="Provider">
            <Select value={provider} onValue={setProvider} options={PROVIDERS} />
          </Field>
          <Field label="Provider key">
            <TextInput type="password" autoComplete="off" required value={secret} onValue={setSecret} />
          </Field>
          <Field label="Remind after (days)">
            <input
              type="number"
              min={1}
              max={365}
              value={days}
              onInput={(e) => setDays(Number(e.currentTarget.value))}
            />
          </Field>
          <button type="submit" disabled={action.pending}>
            Add provider key
          </button>
        </form>
      </Section>
    </>
  );
}

interface RagSettings {
  enabled_sources: Record<string, boolean>;
  collection_limits: Record<string, number>;
  collection_interval_minutes: number;
  auto_expiration_days: number;
  max_posts_per_run: number;
  version: number;
  updated_at: string;
  updated_by: string | null;
}
type Draft = Pick<
  RagSettings,
  'enabled_sources' | 'collection_limits' | 'collection_interval_minutes' | 'auto_expiration_days' | 'max_posts_per_run'
>;
const draftOf = (s: RagSettings): Draft => ({
  enabled_sources: { ...s.enabled_sources },
  collection_limits: { ...s.collection_limits },
  collection_interval_minutes: s.collection_interval_minutes,
  auto_expiration_days: s.auto_expiration_days,
  max_posts_per_run: s.max_posts_per_run,
});

/** Only what the form changed from what it loaded: saving over a newer version then keeps the rest of it. */
function changesOf(original: Draft, draft: Draft): Record<string, unknown> {
  const patch: Record<string, unknown> = {};
  for (const key of ['enabled_sources', 'collection_limits'] as const) {
    const changed = Object.fromEntries(Object.entries(draft[key]).filter(([k, v]) => original[key][k] !== v));
    if (Object.keys(changed).length) patch[key] = changed;
  }
  for (const key of ['collection_interval_minutes', 'auto_expiration_days', 'max_posts_per_run'] as const)
    if (draft[key] !== original[key]) patch[key] = draft[key];
  return patch;
}

export function RetrievalPanel() {
  const settings = useApi<RagSettings>('/api/v1/admin/rag-settings');
  const [draft, setDraft] = useState<Draft | null>(null);
  const [original, setOriginal] = useState<Draft | null>(null);
  const [base, setBase] = useState<number | null>(null);
  const [theirs, setTheirs] = useState<RagSettings | null>(null);
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => {
    if (settings.data && draft === null) {
      setDraft(draftOf(settings.data));
      setOriginal(draftOf(settings.data));
      setBase(settings.data.version);
    }
  }, [settings.data]);

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(false);
    try {
      const answer = await api<RagSettings>('/api/v1/admin/rag-settings', {
        method: 'PUT',
        body: { ...changesOf(original!, draft!), version: base },
      });
      settings.setData(answer);
      setDraft(draftOf(answer));
      setOriginal(draftOf(answer));
      setBase(answer.version);
      setTheirs(null);
      setSaved(true);
      action.setError(null);
    } catch (caught) {
      if (caught instanceof ApiError && caught.status === 409) {
        // Someone saved meanwhile: show their values beside the edits, which stay in the form.
        setTheirs(await api<RagSettings>('/api/v1/admin/rag-settings'));
      } else action.setError(caught instanceof Error ? caught.message : String(caught));
    }
  };
  const number = (key: 'collection_interval_minutes' | 'auto_expiration_days' | 'max_posts_per_run', label: string) => (
    <Field label={label}>
      <input
        type="number"
        required
        value={draft![key]}
        onInput={(e) => setDraft({ ...draft!, [key]: Number(e.currentTarget.value) })}
      />
    </Field>
  );
  return (
    <Section title="Retrieval settings">
      <ErrorNote error={settings.error ?? action.error} />
      {theirs ? (
        <div role="alert" class="notice">
          <p>
            These settings were changed by someone else ({time(theirs.updated_at)}, version {theirs.version}) since you
            opened them. Your edits are kept below; theirs are (keeping yours saves only the fields you changed):
          </p>
          <pre class="secret">{JSON.stringify(draftOf(theirs), null, 2)}</pre>
          <div class="row">
            <button type="button" onClick={() => setBase(theirs.version)}>
              Keep my edits over theirs
            </button>
            <button
              type="button"
              class="ghost"
              onClick={() => {
                setDraft(draftOf(theirs));
                setOriginal(draftOf(theirs));
                setBase(theirs.version);
                setTheirs(null);
              }}
            >
              Take theirs
            </button>
          </div>
        </div>
      ) : null}
      {draft ? (
        <form onSubmit={save}>
          <fieldset>
            <legend>Sources</legend>
            {Object.keys(draft.enabled_sources)
              .sort()
              .map((source) => (
                <label key={source} class="check">
                  <input
                    type="checkbox"
                    checked={draft.enabled_sources[source]}
                    onChange={(e) =>
                      setDraft({
                        ...draft,
                        enabled_sources: { ...draft.enabled_sources, [source]: e.currentTarget.checked },
                      })
                    }
                  />{' '}
                  {source}
                </label>
              ))}
          </fieldset>
          <div class="grid three">
            {Object.keys(draft.collection_limits)
              .sort()
              .map((source) => (
                <Field key={source} label={`Limit for ${source}`}>
                  <input
                    type="number"
                    min={0}
                    required
                    value={draft.collection_limits[source]}
                    onInput={(e) =>
                      setDraft({
                        ...draft,
                        collection_limits: { ...draft.collection_limits, [source]: Number(e.currentTarget.value) },
                      })
                    }
                  />
                </Field>
              ))}
            {number('collection_interval_minutes', 'Collect every (minutes)')}
            {number('auto_expiration_days', 'Expire after (days)')}
            {number('max_posts_per_run', 'Posts per run')}
          </div>
          <p class="muted">{`Version ${base ?? '—'}`}</p>
          <button type="submit">Save settings</button>
          {saved ? <span role="status"> Saved.</span> : null}
        </form>
      ) : (
        <Loading loading={settings.loading} />
      )}
    </Section>
  );
}
