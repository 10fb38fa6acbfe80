/**
 * A small, deterministic customer-support agent used by `benchmarks/examples/customer-support.yaml`.
 * It routes on keywords, "calls" tools (recorded in its trajectory) and reports made-up but stable usage,
 * cost and latency, so the example runs offline and always scores the same.
 *
 * The harness loads it with the `module` adapter: `module: ../../examples/support-agent/agent.ts#run`.
 */

interface ToolCall {
  tool_name: string;
  args: Record<string, unknown>;
  result?: unknown;
  duration?: number;
}

interface Reply {
  output: string;
  tool_calls: ToolCall[];
  usage: { input_tokens: number; output_tokens: number };
  cost: number;
  latency: number;
}

const ORDERS: Record<string, { item: string; price: number; status: string; tracking: string }> = {
  'A-1001': { item: 'wireless headphones', price: 59.99, status: 'delivered', tracking: 'TRK-4410' },
  'A-1002': { item: 'coffee grinder', price: 34.5, status: 'in transit', tracking: 'TRK-4411' },
};

function reply(output: string, tool_calls: ToolCall[], tokens: [number, number], latency: number): Reply {
  const [input_tokens, output_tokens] = tokens;
  // Priced like a small hosted model: $0.50 / 1M input tokens, $1.50 / 1M output tokens.
  const cost = Number(((input_tokens * 0.5 + output_tokens * 1.5) / 1_000_000).toFixed(8));
  return { output, tool_calls, usage: { input_tokens, output_tokens }, cost, latency };
}

/** Answer one customer message. */
export async function run(input: string | Record<string, unknown>): Promise<Reply> {
  const text = (typeof input === 'string' ? input : String(input.message ?? JSON.stringify(input))).toLowerCase();
  const orderId = /a-\d{4}/i.exec(text)?.[0]?.toUpperCase() ?? 'A-1001';
  const order = ORDERS[orderId];

  if (/refund|broken|damaged|return/.test(text)) {
    if (!order) return reply(`I could not find order ${orderId}.`, [], [40, 12], 0.21);
    return reply(
      `I'm sorry about that. A refund of $${order.price.toFixed(2)} for your ${order.item} (order ${orderId}) has been issued.`,
      [
        { tool_name: 'lookup_order', args: { order_id: orderId }, result: order, duration: 0.04 },
        {
          tool_name: 'issue_refund',
          args: { order_id: orderId, amount: order.price },
          result: { ok: true },
          duration: 0.08,
        },
      ],
      [62, 31],
      0.34,
    );
  }
  if (/where|track|shipping|shipment|delivery/.test(text)) {
    if (!order) return reply(`I could not find order ${orderId}.`, [], [35, 10], 0.18);
    return reply(
      `Order ${orderId} is ${order.status} (tracking number ${order.tracking}).`,
      [
        { tool_name: 'lookup_order', args: { order_id: orderId }, result: order, duration: 0.04 },
        {
          tool_name: 'track_shipment',
          args: { tracking: order.tracking },
          result: { status: order.status },
          duration: 0.05,
        },
      ],
      [48, 18],
      0.26,
    );
  }
  if (/cancel/.test(text)) {
    return reply(
      `Order ${orderId} has been cancelled.`,
      [{ tool_name: 'cancel_order', args: { order_id: orderId }, result: { ok: true }, duration: 0.06 }],
      [30, 9],
      0.2,
    );
  }
  if (/^(hi|hello|hey)\b/.test(text.trim())) {
    return reply('Hello! How can I help you with your order today?', [], [12, 11], 0.08);
  }
  return reply("I'm sorry, I can only help with orders, refunds and deliveries.", [], [20, 14], 0.12);
}
