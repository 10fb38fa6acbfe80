import { z } from 'zod';

/** min/max (inclusive) with an optional exact value; at least one must be given and min <= max. */
export const BoundsOptions = z
  .strictObject({
    min: z.number().min(0).optional(),
    max: z.number().min(0).optional(),
    /** Exact value (shorthand for min = max = value). */
    value: z.number().min(0).optional(),
  })
  .superRefine((o, ctx) => {
    if (o.min === undefined && o.max === undefined && o.value === undefined) {
      ctx.addIssue({ code: 'custom', path: ['max'], message: 'give at least one of min, max or value' });
    }
    if (o.min !== undefined && o.max !== undefined && o.min > o.max) {
      ctx.addIssue({ code: 'custom', path: ['min'], message: 'min must be <= max' });
    }
  });
export type BoundsOptions = z.infer<typeof BoundsOptions>;

/** Describe why `n` is outside the bounds, or null when inside. */
export function outOfBounds(n: number, b: BoundsOptions, unit: string): string | null {
  const min = b.value ?? b.min;
  const max = b.value ?? b.max;
  if (min !== undefined && n < min) return `${n} ${unit}, fewer than the minimum ${min}`;
  if (max !== undefined && n > max) return `${n} ${unit}, more than the maximum ${max}`;
  return null;
}

export function describeBounds(b: BoundsOptions): string {
  if (b.value !== undefined) return `exactly ${b.value}`;
  if (b.min !== undefined && b.max !== undefined) return `${b.min}-${b.max}`;
  return b.min !== undefined ? `>= ${b.min}` : `<= ${b.max}`;
}
