// The portfolio: what the holdings are worth and cost, and the value curve over time.
import { AreaSeries, ColorType, createChart, type UTCTimestamp } from 'lightweight-charts';
import { useEffect, useRef, useState } from 'preact/hooks';
import { num, percent, time, trend } from '../../format.ts';
import { DataTable, TradingViewCredit, ErrorNote, Loading, Section, useApi } from '../../ui.tsx';

interface Summary {
  quote: string;
  as_of: string;
  value: number;
  cost_basis: number;
  unrealized_pnl: number;
  realized_pnl: number;
  fees: number;
  net_deposits: number;
  assets: {
    asset: string;
    amount: number;
    price: number | null;
    value: number;
    cost_basis: number;
    unrealized_pnl: number;
    realized_pnl: number;
  }[];
}
interface History {
  quote: string;
  points: { ts: string; value: number; net_deposits: number }[];
  twr: number | null;
  mwr: number | null;
}

const css = (name: string) => getComputedStyle(document.documentElement).getPropertyValue(name).trim();

function ValueCurve(props: { history: History }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const chart = createChart(box.current!, {
      autoSize: true,
      // The library's own logo injects a <style> element, which the CSP refuses; the credit is in the caption.
      layout: {
        background: { type: ColorType.Solid, color: css('--surface') },
        textColor: css('--text'),
        attributionLogo: false,
      },
      grid: { vertLines: { color: css('--line') }, horzLines: { color: css('--line') } },
      localization: { locale: navigator.language },
    });
    const series = chart.addSeries(AreaSeries, {
      lineColor: css('--accent'),
      topColor: css('--up-soft'),
      bottomColor: 'rgba(0,0,0,0)',
    });
    series.setData(
      props.history.points.map((p) => ({ time: Math.floor(Date.parse(p.ts) / 1000) as UTCTimestamp, value: p.value })),
    );
    chart.timeScale().fitContent();
    return () => chart.remove();
  }, [props.history]);
  return (
    <figure class="chart-figure">
      <div class="chart" ref={box} />
      <figcaption>
        {`Portfolio value in ${props.history.quote} over time.`} <TradingViewCredit />
      </figcaption>
    </figure>
  );
}

export function PortfolioPanel() {
  const [interval, setInterval] = useState<'1h' | '1d'>('1d');
  const summary = useApi<Summary>('/api/portfolio/summary');
  const history = useApi<History>('/api/portfolio/history', { interval });
  const s = summary.data;
  return (
    <>
      <Section title="Portfolio">
        <ErrorNote error={summary.error} />
        <Loading loading={summary.loading && !s} />
        {s ? (
          <>
            <div class="stats">
              <div>
                <span class="label">Value ({s.quote})</span>
                <strong>{num(s.value, 2)}</strong>
              </div>
              <div>
                <span class="label">Cost basis</span>
                <strong>{num(s.cost_basis, 2)}</strong>
              </div>
              <div>
                <span class="label">Unrealized</span>
                <strong class={trend(s.unrealized_pnl)}>{num(s.unrealized_pnl, 2)}</strong>
              </div>
              <div>
                <span class="label">Realized</span>
                <strong class={trend(s.realized_pnl)}>{num(s.realized_pnl, 2)}</strong>
              </div>
              <div>
                <span class="label">Fees</span>
                <strong>{num(s.fees, 2)}</strong>
              </div>
              <div>
                <span class="label">Net deposits</span>
                <strong>{num(s.net_deposits, 2)}</strong>
              </div>
            </div>
            <DataTable
              caption={`Holdings as of ${time(s.as_of)}`}
              rows={s.assets}
              rowKey={(a) => a.asset}
              empty="No holdings yet: add an exchange key and sync it."
              columns={[
                { key: 'asset', label: 'Asset', render: (a) => a.asset },
                { key: 'amount', label: 'Amount', numeric: true, render: (a) => num(a.amount) },
                { key: 'price', label: 'Price', numeric: true, render: (a) => num(a.price) },
                { key: 'value', label: 'Value', numeric: true, render: (a) => num(a.value, 2) },
                {
                  key: 'pnl',
                  label: 'Unrealized',
                  numeric: true,
                  render: (a) => <span class={trend(a.unrealized_pnl)}>{num(a.unrealized_pnl, 2)}</span>,
                },
              ]}
            />
          </>
        ) : null}
      </Section>
      <Section
        title="Value over time"
        actions={
          <fieldset class="segmented" aria-label="Curve interval">
            {(['1h', '1d'] as const).map((value) => (
              <button type="button" key={value} aria-pressed={interval === value} onClick={() => setInterval(value)}>
                {value === '1d' ? 'Daily' : 'Hourly'}
              </button>
            ))}
          </fieldset>
        }
      >
        <ErrorNote error={history.error} />
        {history.data ? (
          <>
            <p class="muted">
              Time-weighted return {percent(history.data.twr === null ? null : history.data.twr * 100)} · money-weighted{' '}
              {percent(history.data.mwr === null ? null : history.data.mwr * 100)}
            </p>
            {history.data.points.length ? <ValueCurve history={history.data} /> : <p>No history yet.</p>}
          </>
        ) : (
          <Loading loading={history.loading} />
        )}
      </Section>
    </>
  );
}
