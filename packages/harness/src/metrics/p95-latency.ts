import { defineLatencyPercentile } from './support/percentile.js';

/** 95th percentile of agent latency (seconds); also registered as latency_p95. */
export const p95Latency = defineLatencyPercentile(95);
