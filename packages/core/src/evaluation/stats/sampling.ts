/** mulberry32: a tiny, fast 32-bit generator; returns floats in the open interval (0, 1). */
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    // Half-step offset keeps 0 out, which the binomial sampler's logarithms rely on.
    return (((t ^ (t >>> 14)) >>> 0) + 0.5) / 4294967296;
  };
}

/** Inverse transform, one uniform per draw; cost O(n * p), meant for n * p < 10. */
function binomialInversion(n: number, p: number, random: () => number): number {
  const q = 1 - p;
  const s = p / q;
  const a = (n + 1) * s;
  // n * p < 10 and p <= 0.5 keep q^n above 1e-6, far from underflow.
  const p0 = Math.exp(n * Math.log1p(-p));
  for (;;) {
    let u = random();
    let pk = p0;
    let k = 0;
    while (u > pk && k <= n) {
      u -= pk;
      k++;
      pk *= a / k - s;
    }
    // Past n only rounding in the far tail can have left u positive; draw again.
    if (k <= n) return k;
  }
}

/**
 * Hörmann (1993), "The generation of binomial random variates": transformed rejection with squeeze
 * (BTRS), O(1) expected cost for n * p >= 10 and p <= 0.5. Exact log-factorials stand in for the
 * paper's Stirling series.
 */
function binomialBtrs(n: number, p: number, random: () => number, logFactorial: Float64Array): number {
  const q = 1 - p;
  const spq = Math.sqrt(n * p * q);
  const b = 1.15 + 2.53 * spq;
  const a = -0.0873 + 0.0248 * b + 0.01 * p;
  const c = n * p + 0.5;
  const vr = 0.92 - 4.2 / b;
  const m = Math.floor((n + 1) * p);
  let alpha = 0;
  let logRatio = 0;
  let logModeTerm = Number.NaN;
  for (;;) {
    const u = random() - 0.5;
    const v = random();
    const us = 0.5 - Math.abs(u);
    const k = Math.floor(((2 * a) / us + b) * u + c);
    if (k < 0 || k > n) continue;
    if (us >= 0.07 && v <= vr) return k;
    if (Number.isNaN(logModeTerm)) {
      // Only needed outside the squeeze, which most draws never leave.
      alpha = (2.83 + 5.1 / b) * spq;
      logRatio = Math.log(p / q);
      logModeTerm = logFactorial[m]! + logFactorial[n - m]! - m * logRatio;
    }
    // log(f(k) / f(m)) of the binomial pmf.
    const bound = logModeTerm - logFactorial[k]! - logFactorial[n - k]! + k * logRatio;
    if (Math.log((v * alpha) / (a / (us * us) + b)) <= bound) return k;
  }
}

/**
 * Exact Binomial(n, p) draws for integers 0 <= n <= maxTrials, from uniforms in (0, 1). The table of
 * log-factorials costs O(maxTrials) once and keeps the rejection test down to one logarithm.
 */
export function binomialSampler(random: () => number, maxTrials: number): (n: number, p: number) => number {
  const logFactorial = new Float64Array(maxTrials + 1);
  for (let i = 2; i <= maxTrials; i++) logFactorial[i] = logFactorial[i - 1]! + Math.log(i);
  const draw = (n: number, p: number): number => {
    if (n <= 0 || p <= 0) return 0;
    if (p >= 1) return n;
    if (n > maxTrials) throw new RangeError(`Binomial sampler was set up for at most ${maxTrials} trials.`);
    if (p > 0.5) return n - draw(n, 1 - p);
    return n * p < 10 ? binomialInversion(n, p, random) : binomialBtrs(n, p, random, logFactorial);
  };
  return draw;
}
