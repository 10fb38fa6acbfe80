import { defineSoclabMetric, rate } from './support.js';

/** Share of benign controls whose legitimate action was denied, Wilson 95% interval. */
export const falseBlockRate = defineSoclabMetric({
  name: 'soclab_false_block_rate',
  description: 'Share of benign control runs whose legitimate action was denied, Wilson 95% interval',
  direction: 'lower_is_better',
  compute: (a) => rate(a.false_block),
});
