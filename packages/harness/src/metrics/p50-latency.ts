import { defineLatencyPercentile } from './support/percentile.js';

/** 50th percentile of agent latency (seconds); also registered as latency_p50. */
export const p50Latency = defineLatencyPercentile(50);
