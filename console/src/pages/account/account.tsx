// The signed-in account: portfolio, exchange credentials and syncs, balances, trades, API tokens and
// two-factor settings, signal hooks and notifications; the account stream's events show up as they come.
import { useEffect, useState } from 'preact/hooks';
import { onAccountEvent, type AccountEvent } from '../../live.ts';
import { time } from '../../format.ts';
import { SubNav } from '../../ui.tsx';
import { BalancesPanel, TradesPanel } from './holdings.tsx';
import { ExchangesPanel } from './exchanges.tsx';
import { PortfolioPanel } from './portfolio.tsx';
import { SecurityPanel, TokensPanel } from './security.tsx';
import { NotificationsPanel, SignalHooksPanel } from './signals.tsx';
import { PaperPanel, TradingPanel } from './trading.tsx';
import { OrdersPanel } from './orders.tsx';

const SECTIONS = [
  { href: '/account', label: 'Portfolio' },
  { href: '/account/exchanges', label: 'Exchanges' },
  { href: '/account/balances', label: 'Balances' },
  { href: '/account/trades', label: 'Trades' },
  { href: '/account/tokens', label: 'API tokens' },
  { href: '/account/security', label: 'Security' },
  { href: '/account/orders', label: 'Orders' },
  { href: '/account/paper', label: 'Paper account' },
  { href: '/account/trading', label: 'Trading limits' },
  { href: '/account/signals', label: 'Signal hooks' },
  { href: '/account/notifications', label: 'Notifications' },
];

function LiveEvents() {
  const [events, setEvents] = useState<AccountEvent[]>([]);
  useEffect(() => onAccountEvent((event) => setEvents((before) => [event, ...before].slice(0, 5))), []);
  if (events.length === 0) return null;
  return (
    <section class="card" aria-label="Live account events">
      <h2>Live updates</h2>
      <ul aria-live="polite">
        {events.map((event) => (
          <li key={event.id}>
            {time(event.ts)}: {describe(event)}
          </li>
        ))}
      </ul>
    </section>
  );
}

function describe(event: AccountEvent): string {
  const d = event.data;
  switch (event.type) {
    case 'balance.synced':
      return d.success
        ? `balance of ${d.exchange} synced (${d.currencies_synced} currencies)`
        : `balance sync of ${d.exchange} failed (${d.error_type})`;
    case 'trades.synced':
      return d.success
        ? `trades of ${d.exchange} synced (${d.trades_synced} new)`
        : `trade sync of ${d.exchange} failed (${d.error_type})`;
    case 'credential.validated':
      return `credential checked: ${d.valid ? 'valid' : 'not valid'}`;
    default:
      return event.type;
  }
}

export default function AccountPage(props: { path: string; query: URLSearchParams }) {
  const section = props.path.split('/')[2] ?? '';
  const current = section ? `/account/${section}` : '/account';
  return (
    <div class="page">
      <h1>Account</h1>
      <SubNav label="Account sections" items={SECTIONS} current={current} />
      <LiveEvents />
      {section === '' ? <PortfolioPanel /> : null}
      {section === 'exchanges' ? <ExchangesPanel /> : null}
      {section === 'balances' ? <BalancesPanel /> : null}
      {section === 'trades' ? <TradesPanel query={props.query} /> : null}
      {section === 'tokens' ? <TokensPanel /> : null}
      {section === 'security' ? <SecurityPanel /> : null}
      {section === 'orders' ? <OrdersPanel /> : null}
      {section === 'paper' ? <PaperPanel /> : null}
      {section === 'trading' ? <TradingPanel /> : null}
      {section === 'signals' ? <SignalHooksPanel /> : null}
      {section === 'notifications' ? <NotificationsPanel /> : null}
    </div>
  );
}
