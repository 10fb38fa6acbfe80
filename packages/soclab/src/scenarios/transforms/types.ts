/**
 * A payload transform (a converter, in PyRIT's and garak's words): rewrites the payload text the way an
 * attacker would to slip past a filter or a model's habits. `split` transforms return one part per field.
 */
export interface PayloadTransform {
  readonly name: string;
  readonly kind: 'encoding' | 'language' | 'wrapper' | 'split';
  readonly description: string;
  apply(text: string): string | readonly string[];
}
