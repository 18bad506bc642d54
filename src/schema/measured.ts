/**
 * On-disk formats of the run check (docs/check.md): the plan a launch folder was written from
 * (vramplan-plan.json) and what its probe measured (measured.json, measured.rank<N>.json).
 */
import { z } from 'zod';

export const RUN_PLAN_FILE = 'vramplan-plan.json';
export const MEASURED_FILE = 'measured.json';
export const MEASURED_SCHEMA = 'vramplan-measured/1';
export const RUN_PLAN_SCHEMA = 'vramplan-plan/1';

const bytes = z.number().nonnegative();
const positive = z.number().positive();

/** The plan as written into the folder: settings as contract flags, and the figures it promised per GPU. */
export const runPlanSchema = z.object({
  schema: z.literal(RUN_PLAN_SCHEMA),
  model: z.object({
    id: z.string().min(1),
    hfId: z.string().min(1).nullable(),
    ref: z.string().min(1),
  }),
  engine: z.string().min(1),
  /** The contract's flags of the plan (gpu included), as a calibration case holds them. */
  flags: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])),
  gradAccum: z.number().int().positive(),
  gpusPerNode: z.number().int().positive(),
  powerLimitW: z.number().positive().nullable(),
  /** Pinned package versions of the folder's requirements.txt (name -> version). */
  pins: z.record(z.string(), z.string()),
  estimate: z.object({
    allocatedBytes: bytes,
    reservedBytes: bytes,
    deviceBytes: bytes,
    /** Tokens per micro-batch step per GPU (batch x sequence) as planned. */
    tokensPerStep: positive,
    stepSeconds: positive.nullable(),
    tokensPerSecondPerGpu: positive.nullable(),
    ttftSeconds: positive.nullable(),
    tpotSeconds: positive.nullable(),
    /** Sequences each replica decodes at once, as planned (serving). */
    concurrency: positive.nullable(),
  }),
});
export type RunPlan = z.infer<typeof runPlanSchema>;

const gpuSample = z.looseObject({
  index: z.number().int().nonnegative(),
  name: z.string(),
  totalBytes: bytes,
  /** Used before the run started: other processes' share. */
  baselineBytes: bytes,
  peakBytes: bytes,
});

/** measured.json: what `vramplan_probe.py run` or `serve` recorded. */
export const measuredSchema = z.looseObject({
  schema: z.literal(MEASURED_SCHEMA),
  probe: z.enum(['run', 'serve']),
  startedAt: z.string(),
  endedAt: z.string(),
  exitCode: z.number().int().optional(),
  gpus: z.array(gpuSample),
  versions: z.record(z.string(), z.string().nullable()),
  log: z.string().optional(),
  metrics: z.string().optional(),
  ports: z.array(z.number().int()).optional(),
});
export type Measured = z.infer<typeof measuredSchema>;

/** measured.rank<N>.json: the Trainer callback's record of one rank. */
export const rankRecordSchema = z.looseObject({
  schema: z.literal(MEASURED_SCHEMA),
  probe: z.literal('trainer-callback'),
  rank: z.number().int().nonnegative(),
  worldSize: z.number().int().positive(),
  gpuName: z.string().nullable(),
  allocatedBytes: bytes.nullable(),
  reservedBytes: bytes.nullable(),
  steps: z.number().int().nonnegative(),
  stepSeconds: positive.nullable(),
  versions: z.record(z.string(), z.string().nullable()),
});
export type RankRecord = z.infer<typeof rankRecordSchema>;
