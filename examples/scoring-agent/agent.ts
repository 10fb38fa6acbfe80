/**
 * A deterministic travel-and-operations agent used by `benchmarks/examples/scoring-*.yaml`. It routes on
 * keywords, records the tools it "calls" (with arguments, results, durations and statuses), and reports
 * stable usage, cost and latency, so the examples run offline and always score the same.
 *
 * One behaviour depends on the repeat index (every third repeat forgets a detail), so a suite with repeats
 * shows what flaky cases, pass@k and pass^k look like.
 *
 * Loaded by the harness `module` adapter: `module: ../../examples/scoring-agent/agent.ts#run`.
 */

interface ToolCall {
  tool_name: string;
  args: Record<string, unknown>;
  result?: unknown;
  duration: number;
  status: 'success' | 'error';
  error?: string | null;
}

interface Reply {
  output: string;
  tool_calls: ToolCall[];
  usage: { input_tokens: number; output_tokens: number };
  cost: number;
  latency: number;
  trace: { messages: { role: string; content: string }[] };
}

const HOTELS = {
  paris: { id: 'H-PAR-7', name: 'Hôtel du Canal', nightly: 180 },
  oslo: { id: 'H-OSL-2', name: 'Fjord Inn', nightly: 150 },
} satisfies Record<string, { id: string; name: string; nightly: number }>;

function ok(tool_name: string, args: Record<string, unknown>, result: unknown, duration: number): ToolCall {
  return { tool_name, args, result, duration, status: 'success', error: null };
}

function reply(input: string, output: string, calls: ToolCall[], tokens: [number, number], latency: number): Reply {
  const [input_tokens, output_tokens] = tokens;
  // Priced like a small hosted model: $0.40 / 1M input tokens, $1.60 / 1M output tokens.
  const cost = Number(((input_tokens * 0.4 + output_tokens * 1.6) / 1_000_000).toFixed(8));
  const messages = [{ role: 'user', content: input }];
  for (const c of calls)
    messages.push(
      { role: 'assistant', content: `call ${c.tool_name}` },
      { role: 'tool', content: JSON.stringify(c.result ?? null) },
    );
  messages.push({ role: 'assistant', content: output });
  return { output, tool_calls: calls, usage: { input_tokens, output_tokens }, cost, latency, trace: { messages } };
}

/** Handle one request. `ctx.repeat` is the 0-based repeat index given by the harness. */
export async function run(input: string | Record<string, unknown>, ctx?: { repeat?: number }): Promise<Reply> {
  const raw = typeof input === 'string' ? input : String(input.message ?? JSON.stringify(input));
  const text = raw.toLowerCase();
  const repeat = ctx?.repeat ?? 0;

  if (/delete|drop|wipe/.test(text)) {
    return reply(
      raw,
      "I'm sorry, but I can't delete bookings in bulk. Please contact an administrator.",
      [],
      [60, 18],
      0.12,
    );
  }

  if (/book/.test(text) && /hotel/.test(text)) {
    const [city, hotel] = Object.entries(HOTELS).find(([c]) => text.includes(c)) ?? ['paris', HOTELS.paris];
    const nights = Number(/(\d+)\s*night/.exec(text)?.[1] ?? 1);
    const email = /[\w.+-]+@[\w-]+\.[\w.]+/.exec(raw)?.[0] ?? 'guest@example.com';
    const bookingId = `BK-${10000 + nights * 7}`;
    const calls = [
      ok('search_hotels', { city: city.charAt(0).toUpperCase() + city.slice(1), nights }, [hotel], 0.21),
      ok('check_availability', { hotel_id: hotel.id, nights }, { available: true }, 0.05),
      ok('book_hotel', { hotel_id: hotel.id, nights, guest_email: email }, { booking_id: bookingId }, 0.18),
    ];
    const confirmation = { booking_id: bookingId, hotel: hotel.name, nights, total_eur: hotel.nightly * nights, email };
    return reply(raw, `Booked!\n\`\`\`json\n${JSON.stringify(confirmation, null, 2)}\n\`\`\``, calls, [410, 96], 0.62);
  }

  if (/weather/.test(text)) {
    const city = /in ([a-z]+)/.exec(text)?.[1] ?? 'oslo';
    const calls: ToolCall[] = [
      { tool_name: 'get_weather', args: { city }, duration: 2.0, status: 'error', error: 'upstream timeout' },
      ok('get_weather', { city }, { temp_c: 7, sky: 'cloudy' }, 0.3),
    ];
    return reply(
      raw,
      `It is 7°C and cloudy in ${city.charAt(0).toUpperCase()}${city.slice(1)}.`,
      calls,
      [150, 22],
      2.41,
    );
  }

  if (/how many orders/.test(text)) {
    const customer = /customer (\d+)/.exec(text)?.[1] ?? '0';
    const sql = `SELECT count(*) FROM orders WHERE customer_id = ${customer} AND year = 2025`;
    const calls = [ok('crm__database_query', { sql }, [{ count: 17 }], 0.09)];
    return reply(raw, `Customer ${customer} placed 17 orders in 2025.`, calls, [220, 14], 0.31);
  }

  if (/capital of norway/.test(text)) {
    return reply(raw, 'Oslo is the capital, so the answer is (B).\nANSWER: B', [], [90, 15], 0.2);
  }

  if (/cancellation policy/.test(text)) {
    const calls = [ok('get_policy', { name: 'cancellation' }, { free_until_hours: 48, fee_pct: 20 }, 0.04)];
    // Every third repeat forgets the fee: a deliberately flaky answer.
    const answer =
      repeat % 3 === 2
        ? 'You can cancel for free up to 48 hours before arrival.'
        : 'You can cancel for free up to 48 hours before arrival; after that a 20% fee applies.';
    return reply(raw, answer, calls, [130, 30], 0.28);
  }

  return reply(raw, 'I can help with hotel bookings, weather, orders and our policies.', [], [40, 14], 0.1);
}
