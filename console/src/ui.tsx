// Shared pieces: data loading, tables with header cells, labelled fields, status notes.
import { cloneElement, type ComponentChildren, type JSX } from 'preact';
import { useCallback, useEffect, useId, useRef, useState } from 'preact/hooks';
import { navigate, BASE } from './router.ts';
import { api, ApiError } from './session.ts';

export function useApi<T>(
  path: string | null,
  query?: Record<string, string | number | boolean | undefined | null>,
  refreshMs?: number,
) {
  const [data, setData] = useState<T | undefined>(undefined);
  const [error, setError] = useState<string | null>(null);
  const [loading, setLoading] = useState(path !== null);
  const key = `${path}?${JSON.stringify(query ?? {})}`;
  const live = useRef(true);
  const load = useCallback(async () => {
    if (!path) return;
    setLoading(true);
    try {
      const answer = await api<T>(path, { query });
      if (live.current) {
        setData(answer);
        setError(null);
      }
    } catch (caught) {
      if (live.current) setError(caught instanceof Error ? caught.message : String(caught));
    } finally {
      if (live.current) setLoading(false);
    }
  }, [key]);
  useEffect(() => {
    live.current = true;
    void load();
    const timer = refreshMs ? setInterval(() => void load(), refreshMs) : undefined;
    return () => {
      live.current = false;
      clearInterval(timer);
    };
  }, [load]);
  return { data, error, loading, reload: load, setData };
}

export function Link(props: {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
}) {
  const href = props.href.startsWith(BASE) ? props.href : `${BASE}${props.href}`;
  const click = (event: MouseEvent) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(href);
  };
  return (
    <a href={href} class={props.class} aria-current={props['aria-current']} onClick={click}>
      {props.children}
    </a>
  );
}

export interface Column<T> {
  key: string;
  label: string;
  render: (row: T) => ComponentChildren;
  numeric?: boolean;
  sort?: (row: T) => number | string;
}

export function DataTable<T>(props: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty?: string;
  sortable?: boolean;
  initialSort?: string;
  rowClass?: (row: T) => string | undefined;
}) {
  const [sort, setSort] = useState<{ key: string; dir: 1 | -1 } | null>(
    props.initialSort ? { key: props.initialSort, dir: -1 } : null,
  );
  let rows = props.rows;
  const sorter = sort && props.columns.find((c) => c.key === sort.key)?.sort;
  if (sort && sorter) {
    rows = [...rows].sort((a, b) => {
      const x = sorter(a);
      const y = sorter(b);
      return (x < y ? -1 : x > y ? 1 : 0) * sort.dir;
    });
  }
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls sideways takes focus so a keyboard can scroll it (WCAG 2.1.1)
    <section class="table-wrap" tabIndex={0} aria-label={props.caption}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          <tr>
            {props.columns.map((column) => {
              const active = sort?.key === column.key;
              const ariaSort = active ? (sort!.dir === 1 ? 'ascending' : 'descending') : undefined;
              return (
                <th scope="col" key={column.key} class={column.numeric ? 'num' : undefined} aria-sort={ariaSort}>
                  {props.sortable && column.sort ? (
                    <button
                      type="button"
                      class="sort"
                      onClick={() => setSort({ key: column.key, dir: active && sort!.dir === -1 ? 1 : -1 })}
                    >
                      {column.label}
                      <span aria-hidden="true">{active ? (sort!.dir === 1 ? ' ▲' : ' ▼') : ''}</span>
                    </button>
                  ) : (
                    column.label
                  )}
                </th>
              );
            })}
          </tr>
        </thead>
        <tbody>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length}>{props.empty ?? 'Nothing yet.'}</td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={props.rowKey(row)} class={props.rowClass?.(row)}>
                {props.columns.map((column) => (
                  <td key={column.key} class={column.numeric ? 'num' : undefined}>
                    {column.render(row)}
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </section>
  );
}

/** A labelled control: the label names it by `for`, so its accessible name is exactly `label`. */
export function Field(props: { label: string; children: JSX.Element; hint?: string }) {
  const id = useId();
  const hint = props.hint ? `${id}-hint` : undefined;
  return (
    <div class="field">
      <label for={id}>{props.label}</label>
      {cloneElement(props.children, { id, 'aria-describedby': hint })}
      {props.hint ? <small id={hint}>{props.hint}</small> : null}
    </div>
  );
}

/**
 * A `Field`'s text input kept in a string state: it shows `value` and hands each edit to `onValue`.
 * Every other attribute (type, autocomplete, limits) is the input's own.
 */
export function TextInput(
  props: Omit<JSX.InputHTMLAttributes<HTMLInputElement>, 'value' | 'onInput'> & {
    value: string;
    onValue: (value: string) => void;
  },
) {
  const { onValue, ...input } = props;
  return <input {...input} onInput={(e) => onValue(e.currentTarget.value)} />;
}

/** A choice of one option, given as `[value, label]` or as a value shown as it is, for a `Field`. */
export type SelectOption = string | readonly [value: string, label: string];

/** A `Field`'s select kept in a string state: it shows `value` and hands each choice to `onValue`. */
export function Select(
  props: Omit<JSX.SelectHTMLAttributes<HTMLSelectElement>, 'value' | 'onChange'> & {
    value: string;
    onValue: (value: string) => void;
    options: readonly SelectOption[];
  },
) {
  const { onValue, options, ...select } = props;
  return (
    <select {...select} onChange={(e) => onValue(e.currentTarget.value)}>
      {options.map((option) => {
        const [value, label] = typeof option === 'string' ? [option, option] : option;
        return (
          <option key={value} value={value}>
            {label}
          </option>
        );
      })}
    </select>
  );
}

export function ErrorNote(props: { error: string | null | undefined }) {
  return props.error ? (
    <p class="error" role="alert">
      {props.error}
    </p>
  ) : null;
}

export function Loading(props: { loading: boolean }) {
  return props.loading ? (
    <p class="muted" role="status">
      Loading…
    </p>
  ) : null;
}

export function Section(props: { title: string; children: ComponentChildren; actions?: ComponentChildren }) {
  return (
    <section class="card" aria-label={props.title}>
      <header class="card-head">
        <h2>{props.title}</h2>
        {props.actions}
      </header>
      {props.children}
    </section>
  );
}

export function SubNav(props: { label: string; items: { href: string; label: string }[]; current: string }) {
  return (
    <nav class="subnav" aria-label={props.label}>
      {props.items.map((item) => (
        <Link key={item.href} href={item.href} aria-current={props.current === item.href ? 'page' : undefined}>
          {item.label}
        </Link>
      ))}
    </nav>
  );
}

const messageOf = (caught: unknown) =>
  caught instanceof ApiError || caught instanceof Error ? caught.message : String(caught);

/** Runs an action, keeping its pending state and error for the form that started it. */
export function useAction() {
  const [pending, setPending] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const run = async <T,>(action: () => Promise<T>): Promise<T | undefined> => {
    setPending(true);
    setError(null);
    try {
      return await action();
    } catch (caught) {
      setError(messageOf(caught));
      return undefined;
    } finally {
      setPending(false);
    }
  };
  return { pending, error, run, setError };
}

/** The credit lightweight-charts asks for, as a plain link (its own logo would need an inline style). */
export function TradingViewCredit() {
  return (
    <>
      Charts by{' '}
      <a href="https://www.tradingview.com/" rel="noopener noreferrer" target="_blank">
        TradingView Lightweight Charts™
      </a>
      .
    </>
  );
}
