/** Turning hours and watts into dollars: rented GPU-hours, owned energy (+ amortisation), bought hardware. */

export const HOURS_PER_YEAR = 8760;

/** Rented: hours × GPUs × $/GPU-hour (docs/reference/formulas-and-factors.md §3.1 convention). */
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

/**
 * Per-job fixed overheads of a rented run, billed like the run itself (stated assumptions, README
 * "Assumptions and limits"): the pod/instance start (image pull, environment) before the first step, the
 * model download, loading it into GPU memory, and writing checkpoints.
 */
export const JOB_OVERHEAD = {
  /** Start-up and provisioning: container image pull and environment set-up, minutes (assumption). */
  startupMinutes: 5,
  /** Model download from the Hub: 2 Gbit/s = 250 MB/s (assumption; hf_transfer on cloud networks does more). */
  downloadBytesPerSecond: 250e6,
  /** Loading safetensors from local NVMe: 2 GB/s (assumption; PCIe 4 NVMe reads 3-7 GB/s). */
  loadBytesPerSecond: 2e9,
  /** Writing a checkpoint to local disk: 1 GB/s (assumption). */
  writeBytesPerSecond: 1e9,
  /**
   * Spot capacity: a run saves its training state every 30 minutes of steps so that a preemption loses at most
   * that much (assumption, docs/assumptions.md; the launch writes it: core/launch/spot-resume.ts).
   */
  spotSaveIntervalSeconds: 1800,
  /**
   * Bytes per trainable parameter of one resumable save: fp32 weights with AdamW's two fp32 moments (4 + 8, ZeRO
   * paper §3.1, https://arxiv.org/abs/1910.02054, the largest optimizer state vramplan plans) and 16-bit weights (2).
   */
  resumableBytesPerTrainable: 14,
} as const;

/**
 * Hours a spot run spends writing its periodic saves over `runHours` of steps: one save of `trainable`
 * parameters' training state every JOB_OVERHEAD.spotSaveIntervalSeconds, at the local-disk write rate (the
 * bucket is mounted MOUNT_CACHED: writes land on the local disk and upload in the background,
 * https://docs.skypilot.co/en/v0.14.1/reference/storage.html).
 */
export function spotSaveHours(runHours: number, trainable: number): number {
  const o = JOB_OVERHEAD;
  const saves = Math.floor((runHours * 3600) / o.spotSaveIntervalSeconds);
  return (saves * trainable * o.resumableBytesPerTrainable) / o.writeBytesPerSecond / 3600;
}

/**
 * Fixed hours of one training job besides its steps: loading `modelBytes` from local disk and writing
 * `savedBytes` of results; a rented machine also starts up and downloads the model first (an owned one
 * is assumed to have it cached).
 */
export function overheadHours(modelBytes: number, savedBytes: number, rented: boolean): number {
  const o = JOB_OVERHEAD;
  let seconds = modelBytes / o.loadBytesPerSecond + savedBytes / o.writeBytesPerSecond;
  if (rented) seconds += o.startupMinutes * 60 + modelBytes / o.downloadBytesPerSecond;
  return seconds / 3600;
}

/** How a provider rounds billed time: increments and a minimum, seconds; with the page that says so. */
export interface BillingIncrement {
  seconds: number;
  minimumSeconds: number;
  source: string;
}

/** Billing increments of the providers in catalogs/offers (per-second unless the provider says otherwise). */
export const BILLING: Record<string, BillingIncrement> = {
  // "Your Runpod credits are charged every minute the Pod is running."
  runpod: {
    seconds: 60,
    minimumSeconds: 60,
    source: 'https://docs.runpod.io/get-started/billing-information',
  },
  // On-demand instances are billed by the minute.
  lambda: { seconds: 60, minimumSeconds: 60, source: 'https://lambda.ai/pricing' },
  // EC2 Linux on-demand: per-second billing with a 60-second minimum.
  aws: {
    seconds: 1,
    minimumSeconds: 60,
    source: 'https://aws.amazon.com/ec2/pricing/on-demand/',
  },
  vast: {
    seconds: 1,
    minimumSeconds: 1,
    source: 'https://docs.vast.ai/documentation/reference/billing',
  },
  modal: { seconds: 1, minimumSeconds: 1, source: 'https://modal.com/pricing' },
  replicate: { seconds: 1, minimumSeconds: 1, source: 'https://replicate.com/pricing' },
};

const PER_SECOND: BillingIncrement = {
  seconds: 1,
  minimumSeconds: 1,
  source: 'assumed per-second',
};

export const billingOf = (provider: string | null | undefined): BillingIncrement =>
  (provider ? BILLING[provider] : undefined) ?? PER_SECOND;

/** Hours billed for `hours` of use under a billing increment. */
export function billedHours(hours: number, b: BillingIncrement): number {
  const s = Math.max(b.minimumSeconds, Math.ceil((hours * 3600) / b.seconds - 1e-9) * b.seconds);
  return s / 3600;
}

/** What a plan's hardware costs per job: how it is held and its prices. */
export interface CostBasis {
  kind: 'owned' | 'rent' | 'buy';
  usdPerGpuHour: number;
  purchaseUsd: number;
  billing: BillingIncrement;
}

/** Job cost by part (USD): rent for rented GPUs; energy, plus purchase or amortisation, otherwise. */
export interface CostParts {
  rentUsd: number;
  energyUsd: number;
  purchaseUsd: number;
  amortisedUsd: number;
}

/**
 * Cost of one job of `hours` on `gpus` GPUs drawing `wallWatts`: the one composition the search and the
 * reported plan both use. Writes the parts into `parts` when given (no allocation in the search loop).
 */
export function jobCostUsd(
  b: CostBasis,
  hours: number,
  gpus: number,
  wallWatts: number,
  power: { electricityUsdPerKwh: number; pue: number; amortizeYears?: number | undefined },
  parts?: CostParts,
): number {
  let rent = 0;
  let energy = 0;
  let purchase = 0;
  let amort = 0;
  if (b.kind === 'rent') rent = rentCostUsd(billedHours(hours, b.billing), gpus, b.usdPerGpuHour);
  else {
    energy = energyCostUsd(hours, wallWatts, power.electricityUsdPerKwh, power.pue);
    if (b.kind === 'buy') purchase = b.purchaseUsd * gpus;
    else if (power.amortizeYears !== undefined && b.purchaseUsd > 0)
      amort = amortisedUsd(hours, b.purchaseUsd * gpus, power.amortizeYears);
  }
  if (parts) {
    parts.rentUsd = rent;
    parts.energyUsd = energy;
    parts.purchaseUsd = purchase;
    parts.amortisedUsd = amort;
  }
  return rent + energy + purchase + amort;
}
