import { defineLatencyPercentile } from './support/percentile.js';

/** 99th percentile of agent latency (seconds); also registered as latency_p99. */
export const p99Latency = defineLatencyPercentile(99);
