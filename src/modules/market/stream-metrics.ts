// The price stream on /metrics: how many encodings its fan-out made (one per batch per symbol set,
// whatever the number of subscribers), and what it holds now.
import { Counter } from 'prom-client';
import type { Metrics } from '../../platform/observability/metrics.ts';
import type { PriceStreamMetrics } from './price-stream.service.ts';

export function createPriceStreamMetrics(
  metrics: Metrics,
  read: { subscribers: () => number; symbolSets: () => number },
): PriceStreamMetrics {
  // Modules built again on one platform (tests build several apps on one) replace the earlier ones'
  // series instead of failing on a name the registry already holds.
  for (const name of ['market_stream_serializations_total', 'market_stream_subscribers', 'market_stream_symbol_sets'])
    metrics.registry.removeSingleMetric(name);
  const serializations = new Counter({
    name: 'market_stream_serializations_total',
    help: 'Batches of price events encoded for one symbol set; every subscriber of the set gets the same bytes',
    registers: [metrics.registry],
  });
  metrics.gauge('market_stream_subscribers', 'Price stream subscribers on this instance', read.subscribers);
  metrics.gauge(
    'market_stream_symbol_sets',
    'Distinct symbol sets the price stream subscribers follow',
    read.symbolSets,
  );
  return { serialized: () => serializations.inc() };
}
