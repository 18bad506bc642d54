/** Turning hours and watts into dollars: rented GPU-hours, owned energy (+ amortisation), bought hardware. */

export const HOURS_PER_YEAR = 8760;

/** Rented: hours × GPUs × $/GPU-hour (formulas-and-factors §3.1 convention). */
export const rentCostUsd = (hours: number, gpus: number, usdPerGpuHour: number): number =>
  hours * gpus * usdPerGpuHour;

/** Energy: wall kW × hours × PUE × $/kWh (wall watts already include PSU losses; §3.3). */
export const energyCostUsd = (
  hours: number,
  wallWatts: number,
  usdPerKwh: number,
  pue: number,
): number => (wallWatts / 1000) * hours * pue * usdPerKwh;

/** Straight-line amortisation of a purchase over `years` for the hours used (§3.2). */
export const amortisedUsd = (hours: number, purchaseUsd: number, years: number): number =>
  (purchaseUsd * hours) / (years * HOURS_PER_YEAR);
