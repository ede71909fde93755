// Prometheus metrics on a registry of our own, so several apps in one process (tests) never clash.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

export interface Metrics {
  readonly registry: Registry;
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route'>;
  /**
   * One (method, route, status) series of `requests`, for the hottest paths: counted in a plain number
   * and added to the series whenever the metric is read (a scrape, `requests.get()`), so a request
   * costs an increment instead of prom-client hashing its labels.
   */
  requestCounter(method: string, route: string, status: string): { inc(): void };
  /** Set by whoever owns the value at scrape time. */
  gauge(name: string, help: string, collect: () => Promise<number> | number): void;
}

export function createMetrics(withDefaults: boolean): Metrics {
  const registry = new Registry();
  if (withDefaults) collectDefaultMetrics({ register: registry });
  const pending: { series: { inc(value: number): void }; count: number }[] = [];
  const requests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests by route template and status',
    labelNames: ['method', 'route', 'status'],
    registers: [registry],
    collect() {
      for (const counter of pending) {
        if (counter.count === 0) continue;
        counter.series.inc(counter.count);
        counter.count = 0;
      }
    },
  });
  return {
    registry,
    requests,
    requestCounter(method, route, status) {
      const counter = { series: requests.labels(method, route, status), count: 0 };
      pending.push(counter);
      return {
        inc() {
          counter.count += 1;
        },
      };
    },
    duration: new Histogram({
      name: 'http_request_duration_seconds',
      help: 'HTTP request latency by route template',
      labelNames: ['method', 'route'],
      buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    gauge(name, help, collect) {
      new Gauge({
        name,
        help,
        registers: [registry],
        async collect() {
          // A failing source (database down) must not fail the whole scrape; the last value stays.
          try {
            this.set(await collect());
          } catch {
            // keep the previous value
          }
        },
      });
    },
  };
}
