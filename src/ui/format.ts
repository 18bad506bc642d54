/** Pure formatters: the only place units are turned into text. GiB for memory (2^30), GB for bandwidth. */
export const formatGiB = (bytes: number, digits = 2): string =>
  `${(bytes / 1024 ** 3).toFixed(digits)} GiB`;

/**
 * Device memory (what nvidia-smi shows per GPU, and the card's capacity beside it): one decimal of GiB in
 * every view (table, explain, explorer, compare, launch README, estimate, exports). A second decimal would
 * claim a precision the estimate does not have (its band is -7 % / +11 %, src/core/memory/uncertainty.ts).
 */
export const formatDeviceMemory = (bytes: number): string => `${deviceMemoryValue(bytes)} GiB`;

/** The number of formatDeviceMemory, for a cell whose unit is written once ("21.1/24 GiB"). */
export const deviceMemoryValue = (bytes: number): string => (bytes / 1024 ** 3).toFixed(1);

export const formatPercent = (fraction: number, digits = 1): string =>
  `${(fraction * 100).toFixed(digits)}%`;

export const signedPercent = (fraction: number, digits = 1): string =>
  `${fraction >= 0 ? '+' : ''}${(fraction * 100).toFixed(digits)}%`;

/**
 * `n.toLocaleString('en-US')` without building ICU's number formatter, whose first use costs 5-15 ms of a
 * cold start: a safe integer's digits in groups of three joined by commas, '-' before a negative one (CLDR's
 * `en` decimal pattern `#,##0.###`, group separator ',' and minus '-':
 * https://github.com/unicode-org/cldr/blob/release-46/common/main/en.xml). Anything else (fractions, -0,
 * NaN, beyond 2^53) is left to toLocaleString.
 */
export function groupDigits(n: number): string {
  if (!Number.isSafeInteger(n) || Object.is(n, -0)) return n.toLocaleString('en-US');
  const digits = String(Math.abs(n));
  let out = digits.slice(0, ((digits.length - 1) % 3) + 1);
  for (let i = out.length; i < digits.length; i += 3) out += `,${digits.slice(i, i + 3)}`;
  return n < 0 ? `-${out}` : out;
}

/** Whole numbers in text output, with thousands separators: 1,435 (one format everywhere). */
export const formatInt = (n: number): string => groupDigits(Math.round(n));

/** Parameter counts: 6.74B, 350M, 12.3K. */
export function formatCount(n: number): string {
  if (n >= 1e9) return `${(n / 1e9).toFixed(2)}B`;
  if (n >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(1)}K`;
  return String(n);
}

export const formatUsd = (usd: number): string =>
  usd >= 100 ? `$${groupDigits(Math.round(usd))}` : `$${usd.toFixed(2)}`;

export function formatDuration(hours: number): string {
  if (!Number.isFinite(hours)) return '—';
  if (hours < 1) return `${Math.round(hours * 60)} min`;
  if (hours < 48) return `${hours.toFixed(1)} h`;
  const [whole, tenths] = (hours / 24).toFixed(1).split('.');
  return `${groupDigits(Number(whole))}.${tenths} days`;
}

/** A bar of `width` cells, `fraction` of it filled (clamped to 0..1). */
export function bar(fraction: number, width: number, fill = '█', empty = '·'): string {
  const n = Math.max(0, Math.min(width, Math.round(fraction * width)));
  return fill.repeat(n) + empty.repeat(width - n);
}

export const padRight = (s: string, n: number): string =>
  s.length >= n ? s : s + ' '.repeat(n - s.length);
export const padLeft = (s: string, n: number): string =>
  s.length >= n ? s : ' '.repeat(n - s.length) + s;

/** The kernel family a plan's quantized serving weights run through (Marlin, CUTLASS W8A8, ...), null where none is
 * named: 16-bit weights, and GGUF types, whose type names the kernel. */
export const servedKernelName = (qf: string | null | undefined): string | null =>
  qf && qf !== 'gguf' ? qf : null;
