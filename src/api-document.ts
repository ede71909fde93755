// What the OpenAPI document and /docs say about the API as a whole: its title, how to get a token,
// and its groups of operations in the order a reader meets them.

export const API_TITLE = 'Trading Platform API';

export const API_DESCRIPTION = `Administration, exchange connectivity, market data, issue tracker, scheduled jobs, dashboard and
inbound webhooks of the trading platform.

**Console.** The same service serves a console in the browser at [/console](/console): markets and
charts without signing in; your exchange accounts, balances, trades and portfolio once signed in; and,
for admins, users, jobs, keys, the command center and the platform's health.

**Getting a token.** Create an account with \`POST /api/auth/register\` (\`{"email", "password"}\`), then
\`POST /api/auth/login\` with the same body answers \`access_token\` (15 minutes) and \`refresh_token\`.
In these docs, press **Authorize** and paste the \`access_token\` (without "Bearer"). When it expires,
\`POST /api/auth/refresh\` with the \`refresh_token\` answers a new pair.

**Admins.** The first admin comes from \`ADMIN_EMAIL\` and \`ADMIN_PASSWORD\` at start, or from the
command line: \`npm run cli -- users:promote --email <email>\`.

**Errors** are \`{"detail": "..."}\`; invalid input is a 422 whose \`detail\` lists every problem as
Pydantic does (\`type\`, \`loc\`, \`msg\`, \`input\`, \`ctx\`). A method a path does not serve answers
405 \`{"detail":"Method Not Allowed"}\` with an \`Allow\` header; request headers over 16 KiB answer 431, a
malformed request 400.`;

export const API_TAGS = [
  { name: 'auth', description: 'Accounts, sign-in, tokens and sessions.' },
  { name: 'admin', description: 'Users, platform statistics and limits. Admins only.' },
  {
    name: 'admin: command center',
    description: 'Tasks for people and agents, the market intel feed and agent activity. Admins only.',
  },
  {
    name: 'admin: provider API keys',
    description:
      'Keys of the AI and data providers the agents use, stored encrypted, with rotation reminders. Admins only.',
  },
  {
    name: 'admin: retrieval settings',
    description: 'Settings of the retrieval collections the agents search. Admins only.',
  },
  { name: 'admin: strategies', description: 'Trading strategies and their paper-trading record. Admins only.' },
  {
    name: 'admin: trading',
    description: "Caps on every user's risk limits, and the platform's kill switch. Admins only.",
  },
  {
    name: 'exchange',
    description:
      'Your venue API keys (stored encrypted, never returned), balances and trades, and public venue data through ccxt.',
  },
  {
    name: 'trading',
    description:
      'Your risk limits, checked before any order reaches a venue, and your kill switch: halt cancels your open orders and refuses new ones.',
  },
  {
    name: 'orders',
    description:
      'Orders, paper or live, through one state machine: stored with a client order id before anything is ' +
      'sent, never sent twice, looked up when an answer does not come, reconciled on a schedule.',
  },
  {
    name: 'signals',
    description:
      'TradingView alert hooks: each has a URL and a secret; an alert posted there places an order through the same path as your own.',
  },
  {
    name: 'notifications',
    description:
      'Where you are told of fills, rejections, refused signals and halts: mail, Telegram or your own webhook.',
  },
  {
    name: 'portfolio',
    description:
      'What your holdings are worth, what they cost (FIFO) and what you made, from your synced balances, trades and transfers.',
  },
  {
    name: 'paper',
    description: "Your paper trading account: orders walk the venue's real order book with its fees, on paper money.",
  },
  {
    name: 'strategies',
    description: 'Your trading strategies, in paper trading, and the figures their paper fills give them.',
  },
  { name: 'market', description: 'Public market data from Binance and CoinGecko, cached and shared by every caller.' },
  {
    name: 'streams',
    description:
      "Your account's events, live, as Server-Sent Events (`text/event-stream`), resumable with Last-Event-ID. Prices stream under market.",
  },
  { name: 'tracker', description: 'The issue tracker: issues stored here, or in Linear.' },
  { name: 'scheduled jobs', description: 'Maintenance jobs, triggered by a cron that sends the shared secret.' },
  { name: 'dashboard', description: 'Service health, agents and integrations at a glance.' },
  {
    name: 'console',
    description:
      "The browser console's session (the refresh token in an HttpOnly cookie) and its admin actions; the console itself is at /console.",
  },
  {
    name: 'webhooks',
    description:
      'Inbound events of the code host, payments, deployments, tracker, error monitoring, database, auth provider and mail provider, each verified by its signature.',
  },
];
