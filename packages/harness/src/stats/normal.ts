/**
 * Complementary error function (Chebyshev approximation, fractional error below 1.2e-7 everywhere;
 * Press et al., Numerical Recipes, 6.2). Two-sided normal p-value for z: erfc(|z| / sqrt 2).
 */
export function erfc(x: number): number {
  const z = Math.abs(x);
  const t = 1 / (1 + 0.5 * z);
  const r =
    t *
    Math.exp(
      -z * z -
        1.26551223 +
        t *
          (1.00002368 +
            t *
              (0.37409196 +
                t *
                  (0.09678418 +
                    t *
                      (-0.18628806 +
                        t *
                          (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))),
    );
  return x >= 0 ? r : 2 - r;
}

/** One-sided upper tail of the standard normal beyond z: 0.025 for z = 1.96. */
export const normalUpperTail = (z: number): number => erfc(z / Math.SQRT2) / 2;
