// The command center: tasks as a board by status (open one for its comments), the market intel
// feed with each source's precision, and the agents' activity.
import { useState } from 'preact/hooks';
import { num, percent, time } from '../../format.ts';
import { api } from '../../session.ts';
import { DataTable, ErrorNote, Field, Loading, Section, useAction, useApi } from '../../ui.tsx';

const STATUSES = ['todo', 'in_progress', 'blocked', 'in_review', 'done', 'cancelled'] as const;
const BOARD = ['todo', 'in_progress', 'blocked', 'in_review', 'done'] as const;
const LABEL: Record<string, string> = {
  todo: 'To do',
  in_progress: 'In progress',
  blocked: 'Blocked',
  in_review: 'In review',
  done: 'Done',
  cancelled: 'Cancelled',
};

interface Task {
  id: string;
  title: string;
  description: string | null;
  status: string;
  priority: string;
  assignee: string | null;
  comment_count: number;
  updated_at: string;
  comments?: { id: string; body: string; author_id: string | null; created_at: string }[];
}

function TaskDetail(props: { id: string; onChanged: () => void; onClose: () => void }) {
  const task = useApi<Task>(`/api/admin/command-center/tasks/${props.id}`);
  const [comment, setComment] = useState('');
  const action = useAction();
  const t = task.data;
  const move = async (status: string) => {
    await action.run(() => api(`/api/admin/command-center/tasks/${props.id}`, { method: 'PATCH', body: { status } }));
    await task.reload();
    props.onChanged();
  };
  const addComment = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api(`/api/admin/command-center/tasks/${props.id}/comments`, { method: 'POST', body: { body: comment.trim() } }),
    );
    if (done) {
      setComment('');
      await task.reload();
      props.onChanged();
    }
  };
  return (
    <Section
      title={t ? `Task: ${t.title}` : 'Task'}
      actions={
        <button type="button" class="ghost" onClick={props.onClose}>
          Close task
        </button>
      }
    >
      <ErrorNote error={task.error ?? action.error} />
      {t ? (
        <>
          <p>{t.description ?? 'No description.'}</p>
          <p class="muted">
            Priority {t.priority} · assignee {t.assignee ?? 'nobody'} · updated {time(t.updated_at)}
          </p>
          <Field label="Status">
            <select value={t.status} onChange={(e) => void move(e.currentTarget.value)}>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {LABEL[s]}
                </option>
              ))}
            </select>
          </Field>
          <h3>Comments</h3>
          <ul>
            {(t.comments ?? []).map((c) => (
              <li key={c.id}>
                <span class="muted">{time(c.created_at)}:</span> {c.body}
              </li>
            ))}
          </ul>
          <form onSubmit={addComment}>
            <Field label="Comment">
              <textarea required maxLength={5000} value={comment} onInput={(e) => setComment(e.currentTarget.value)} />
            </Field>
            <button type="submit" disabled={action.pending}>
              Add comment
            </button>
          </form>
        </>
      ) : (
        <Loading loading={task.loading} />
      )}
    </Section>
  );
}

function NewTask(props: { onCreated: () => void }) {
  const [title, setTitle] = useState('');
  const [priority, setPriority] = useState('medium');
  const action = useAction();
  const create = async (event: Event) => {
    event.preventDefault();
    const done = await action.run(() =>
      api('/api/admin/command-center/tasks', { method: 'POST', body: { title: title.trim(), priority } }),
    );
    if (done) {
      setTitle('');
      props.onCreated();
    }
  };
  return (
    <form class="row" onSubmit={create}>
      <Field label="New task">
        <input required maxLength={200} value={title} onInput={(e) => setTitle(e.currentTarget.value)} />
      </Field>
      <Field label="Priority">
        <select value={priority} onChange={(e) => setPriority(e.currentTarget.value)}>
          {['critical', 'high', 'medium', 'low'].map((p) => (
            <option key={p} value={p}>
              {p}
            </option>
          ))}
        </select>
      </Field>
      <button type="submit" disabled={action.pending}>
        Create task
      </button>
      <ErrorNote error={action.error} />
    </form>
  );
}

interface Intel {
  events: {
    id: string;
    asset: string;
    symbol: string;
    direction: string;
    source: string;
    trust_tier: string;
    strength: number;
    detected_at: string;
    outcome_pct: number | null;
  }[];
  summary: Record<string, { total: number; scored: number; correct: number; precision: number }>;
}
interface Activity {
  events: {
    id: string;
    agent_id: string;
    agent_name: string | null;
    kind: string;
    rationale: string;
    created_at: string;
  }[];
}

export function CommandCenterPanel() {
  const tasks = useApi<{ tasks: Task[]; total: number }>('/api/admin/command-center/tasks', { limit: 200 });
  const intel = useApi<Intel>('/api/admin/command-center/intel', { limit: 50 });
  const activity = useApi<Activity>('/api/admin/command-center/agent-activity', { hours: 24, limit: 50 });
  const [open, setOpen] = useState<string | null>(null);
  const byStatus = (status: string) => (tasks.data?.tasks ?? []).filter((t) => t.status === status);
  return (
    <>
      <Section title="Tasks">
        <NewTask onCreated={() => void tasks.reload()} />
        <ErrorNote error={tasks.error} />
        <Loading loading={tasks.loading && !tasks.data} />
        <div class="board">
          {BOARD.map((status) => (
            <section key={status} aria-label={LABEL[status]}>
              <h3>
                {LABEL[status]} <span class="badge">{byStatus(status).length}</span>
              </h3>
              <ul>
                {byStatus(status).map((t) => (
                  <li key={t.id}>
                    <button type="button" class="ghost" onClick={() => setOpen(t.id)}>
                      {t.title}
                    </button>
                    <div class="muted">
                      {t.priority} · {t.assignee ?? 'unassigned'} · {num(t.comment_count, 0)} comments
                    </div>
                  </li>
                ))}
              </ul>
            </section>
          ))}
        </div>
      </Section>
      {open ? (
        <TaskDetail key={open} id={open} onChanged={() => void tasks.reload()} onClose={() => setOpen(null)} />
      ) : null}
      <Section title="Intel feed">
        <ErrorNote error={intel.error} />
        {intel.data ? (
          <>
            <DataTable
              caption="Precision by source"
              rows={Object.entries(intel.data.summary).map(([source, s]) => ({ source, ...s }))}
              rowKey={(s) => s.source}
              empty="No source has been scored yet."
              columns={[
                { key: 'source', label: 'Source', render: (s) => s.source },
                { key: 'total', label: 'Calls', numeric: true, render: (s) => num(s.total, 0) },
                { key: 'scored', label: 'Scored', numeric: true, render: (s) => num(s.scored, 0) },
                { key: 'correct', label: 'Correct', numeric: true, render: (s) => num(s.correct, 0) },
                { key: 'precision', label: 'Precision', numeric: true, render: (s) => percent(s.precision * 100) },
              ]}
            />
            <DataTable
              caption="Latest intel"
              rows={intel.data.events}
              rowKey={(e) => e.id}
              empty="No intel recorded."
              columns={[
                { key: 'when', label: 'Detected', render: (e) => time(e.detected_at) },
                { key: 'symbol', label: 'Pair', render: (e) => e.symbol },
                { key: 'direction', label: 'Direction', render: (e) => e.direction },
                { key: 'source', label: 'Source', render: (e) => `${e.source} (${e.trust_tier})` },
                { key: 'strength', label: 'Strength', numeric: true, render: (e) => num(e.strength) },
                { key: 'outcome', label: 'Outcome', numeric: true, render: (e) => percent(e.outcome_pct) },
              ]}
            />
          </>
        ) : (
          <Loading loading={intel.loading} />
        )}
      </Section>
      <Section title="Agent activity">
        <ErrorNote error={activity.error} />
        {activity.data ? (
          <DataTable
            caption="Agent activity in the last 24 hours"
            rows={activity.data.events}
            rowKey={(e) => e.id}
            empty="No agent activity in the last 24 hours."
            columns={[
              { key: 'when', label: 'When', render: (e) => time(e.created_at) },
              { key: 'agent', label: 'Agent', render: (e) => e.agent_name ?? e.agent_id },
              { key: 'kind', label: 'Kind', render: (e) => e.kind },
              { key: 'why', label: 'Rationale', render: (e) => e.rationale },
            ]}
          />
        ) : (
          <Loading loading={activity.loading} />
        )}
      </Section>
    </>
  );
}
