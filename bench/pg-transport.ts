// What a statement costs over loopback TCP and over PostgreSQL's Unix socket, in one run (decision 1390):
// the same small statement through two pools of node-postgres, rounds alternating, for 1 and 4 statements in
// flight. Per statement: the whole machine's CPU (from /proc/stat: user, system, interrupts; loopback TCP's
// receive work is counted as softirq, outside any process's time), this process's CPU (getrusage) and wall time.
// Usage: node --import tsx bench/pg-transport.ts [socket directory]   (default /var/run/postgresql; BENCH_DATABASE_URL
// names the server's TCP address and database, as for the other benchmarks)
import { readFileSync } from 'node:fs';
import pg from 'pg';
import { PG_URL } from './postgres.ts';

const STATEMENTS = Number(process.env.BENCH_TRANSPORT_STATEMENTS ?? 6000);
const ROUNDS = 6;
const socketDirectory = process.argv[2] ?? '/var/run/postgresql';

const viaSocket = new URL(PG_URL);
viaSocket.searchParams.set('host', socketDirectory);
const pools = {
  tcp: new pg.Pool({ connectionString: PG_URL, max: 4 }),
  socket: new pg.Pool({ connectionString: viaSocket.toString(), max: 4 }),
};
type Transport = keyof typeof pools;

/** The machine's busy time and its softirq part, in clock ticks, as /proc/stat counts them. */
function machineTicks(): { busy: number; softirq: number } {
  const [user, nice, system, , , irq, softirq] = readFileSync('/proc/stat', 'utf8')
    .split('\n')[0]!
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  return { busy: user! + nice! + system! + irq! + softirq!, softirq: softirq! };
}
const MICROSECONDS_PER_TICK = 10_000;

interface Round {
  machine: number;
  softirq: number;
  process: number;
  wall: number;
}

async function round(transport: Transport, inFlight: number): Promise<Round> {
  const pool = pools[transport];
  const machineBefore = machineTicks();
  const cpuBefore = process.cpuUsage();
  const startedAt = performance.now();
  let sent = 0;
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (sent < STATEMENTS) await pool.query('SELECT $1::int AS n', [++sent]);
    }),
  );
  const wall = performance.now() - startedAt;
  const cpu = process.cpuUsage(cpuBefore);
  const machineAfter = machineTicks();
  return {
    machine: ((machineAfter.busy - machineBefore.busy) * MICROSECONDS_PER_TICK) / STATEMENTS,
    softirq: ((machineAfter.softirq - machineBefore.softirq) * MICROSECONDS_PER_TICK) / STATEMENTS,
    process: (cpu.user + cpu.system) / STATEMENTS,
    wall: (wall * 1000) / STATEMENTS,
  };
}

const median = (rounds: Round[], figure: keyof Round) => {
  const sorted = rounds.map((r) => r[figure]).sort((a, b) => a - b);
  return sorted[sorted.length >> 1]!.toFixed(1);
};

console.log(`PostgreSQL at ${new URL(PG_URL).host} and through ${socketDirectory}; node ${process.version}`);
console.log(`${STATEMENTS} statements a round, ${ROUNDS} rounds of each, alternating\n`);
console.log(
  '| in flight | transport | machine CPU µs/statement (softirq) | this process µs/statement | wall µs/statement |',
);
console.log('|---|---|---|---|---|');
try {
  for (const inFlight of [1, 4]) {
    await round('tcp', inFlight);
    await round('socket', inFlight);
    const rounds: Record<Transport, Round[]> = { tcp: [], socket: [] };
    for (let i = 0; i < ROUNDS; i++) {
      for (const transport of i % 2 === 0 ? (['tcp', 'socket'] as const) : (['socket', 'tcp'] as const))
        rounds[transport].push(await round(transport, inFlight));
    }
    for (const transport of ['tcp', 'socket'] as const) {
      const r = rounds[transport];
      console.log(
        `| ${inFlight} | ${transport} | ${median(r, 'machine')} (${median(r, 'softirq')}) | ${median(r, 'process')} | ${median(r, 'wall')} |`,
      );
    }
  }
} finally {
  await Promise.all(Object.values(pools).map((pool) => pool.end()));
}
