/**
 * The seed's example agent: `support_agent`, named in a suite as `module: "examples.basic.mock_agent:support_agent"`
 * with `adapter: generic` (resolved from the suite's project root, this repository). It routes on keywords
 * in the lowercased input, "calls" tools and reports fixed latency, tokens and cost, so suites that use it
 * always score the same. Used by `benchmarks/examples/customer_support.yaml` and `examples/basic/benchmark.yaml`.
 */

interface ToolCall {
  tool_name: string;
  args: Record<string, unknown>;
}

interface SupportReply {
  output: string;
  tool_calls: ToolCall[];
  latency: number;
  usage: { input_tokens: number; output_tokens: number };
  cost: number;
}

function reply(output: string, tool_calls: ToolCall[], latency: number, tokens: [number, number], cost: number) {
  const [input_tokens, output_tokens] = tokens;
  return { output, tool_calls, latency, usage: { input_tokens, output_tokens }, cost } satisfies SupportReply;
}

/** Answer a support request: the first matching rule wins (refund, order tracking, weather, greeting). */
export function support_agent(input: string | Record<string, unknown>): SupportReply {
  const text = (typeof input === 'string' ? input : JSON.stringify(input)).toLowerCase();
  if (text.includes('refund')) {
    return reply(
      'Refund of $49.99 processed for order ORD-123.',
      [
        { tool_name: 'lookup_order', args: { order_id: 'ORD-123' } },
        { tool_name: 'process_refund', args: { amount: 49.99, currency: 'USD' } },
      ],
      0.32,
      [45, 15],
      0.0003,
    );
  }
  if (['order', 'tracking', 'shipment'].some((w) => text.includes(w))) {
    return reply(
      'Your package is currently in transit and scheduled for delivery tomorrow.',
      [{ tool_name: 'track_shipment', args: { tracking_number: 'TRK-990' } }],
      0.18,
      [30, 20],
      0.0002,
    );
  }
  if (text.includes('weather')) {
    return reply(
      'The weather in San Francisco is 65°F and sunny.',
      [{ tool_name: 'get_weather', args: { location: 'San Francisco' } }],
      0.25,
      [25, 12],
      0.0001,
    );
  }
  // Substring checks, as in the seed's agent: "this" counts as a greeting too.
  if (['hello', 'hi', 'greet'].some((w) => text.includes(w))) {
    return reply('Hello! How can I assist you with your order today?', [], 0.09, [10, 15], 0.00005);
  }
  return reply("I'm sorry, I didn't understand your request.", [], 0.12, [12, 10], 0.00004);
}
