/**
 * On-disk format of scenarios/*.yaml|json: the job, the hardware one may use, power, limits and the ranking
 * preference. References catalog ids (model, GPUs, offers, circuits), never copies. Strict everywhere.
 */
import { z } from 'zod';
import {
  ATTENTION,
  CHECKPOINTING,
  FRAMEWORKS,
  frameworkNames,
  OPTIMIZERS,
  WEIGHT_DTYPES,
  COMPUTE_DTYPES,
  type Framework,
} from './estimate.js';
import { psuTier } from './power.js';
import { engineNames, ENGINES, type Engine } from './engine.js';
import { objectiveJobFields } from './objective-job.js';
import { describeFields } from './scenario-docs.js';

/** Quality tiers, best first (core/plan/quality.ts): a scenario's `quality` is the least it accepts. */

/**
 * A name from a list known only once engines register (plug-ins), checked at parse time with zod's own enum
 * issue; the JSON schema lists `builtIn` (the names known before any plug-in registers).
 */
const registeredName = <T extends string>(names: () => readonly T[], builtIn: readonly T[]) =>
  z
    .string()
    .superRefine((v, ctx) => {
      const allowed = [...new Set(names())];
      if (!(allowed as readonly string[]).includes(v))
        ctx.addIssue({ code: 'invalid_value', values: allowed, input: v });
    })
    .meta({ enum: [...new Set(builtIn)] }) as unknown as z.ZodType<T, string>;

export const QUALITY = ['exact', 'near', 'lossy'] as const;

const id = z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a lower-case kebab-case catalog id');
const pos = z.number().positive();
/**
 * The most tokens a job may name (dataset, output): over sixty times the largest published pretraining
 * set (about 15T tokens for Llama 3, https://arxiv.org/abs/2407.21783 §1); a larger figure is a typo, and would
 * print costs hundreds of digits long.
 */
const MAX_JOB_TOKENS = 1e15;
const tokens = pos.max(MAX_JOB_TOKENS);
const count = (max: number) => z.number().int().min(1).max(max);

/** Training methods a fine-tune may use. */
export const TRAIN_METHODS = ['full', 'lora', 'qlora'] as const;

export const fineTuneJobSchema = z
  .object({
    kind: z.literal('fine-tune'),
    /** Methods the planner may choose from. */
    methods: z.array(z.enum(TRAIN_METHODS)).min(1).default(['full', 'lora', 'qlora']),
    /** Tokens per training sample. */
    seq: count(1_000_000).default(2048),
    /** Samples per optimizer step (kept with gradient accumulation whatever the micro-batch). */
    globalBatch: count(1_000_000).default(16),
    /** Tokens in the dataset (one epoch). */
    datasetTokens: tokens.default(10_000_000),
    // An input bound, not a measured figure: epochs times datasetTokens stays under MAX_JOB_TOKENS x 1e4.
    epochs: pos.max(10_000).default(1),
    loraRank: count(65_536).default(16),
    /** 'all-linear' or a list of q,k,v,o,gate,up,down; absent: each engine's recipe targets (docs/engines.md). */
    loraTargets: z
      .union([
        z.literal('all-linear'),
        z.array(z.enum(['q', 'k', 'v', 'o', 'gate', 'up', 'down'])).min(1),
      ])
      .optional(),
    ...objectiveJobFields,
  })
  .strict();

export const inferenceJobSchema = z
  .object({
    kind: z.literal('inference'),
    /** Total tokens per sequence (prompt + generated). */
    context: count(10_000_000).default(4096),
    /** Sequences served at once (decode batch). */
    concurrency: count(100_000).default(1),
    /** Output tokens of the whole job, all requests together (time and cost); not per request. */
    outputTokens: tokens.default(10_000_000),
    /** Prompt tokens per request (the rest of `context` is generated); default half the context. */
    promptTokens: count(10_000_000).optional(),
    /** Service level per request: time to first token and time per output token, milliseconds. */
    slo: z
      .object({
        ttftMs: z.number().positive().optional(),
        tpotMs: z.number().positive().optional(),
      })
      .strict()
      .optional(),
    /**
     * Prefix caching: the share of each prompt that is a shared prefix (system prompt, few-shot examples)
     * served from vLLM's / SGLang's prefix cache, so only the rest is prefilled (shorter TTFT).
     */
    prefixCaching: z.number().min(0).lt(1).optional(),
    /** Requests per second the plan's replicas must complete (each: a prompt, then context - prompt tokens). */
    requestsPerSecond: z.number().positive().optional(),
    /**
     * Multi-LoRA serving: LoRA adapters served at once on the base model (the engine's adapter slots) and
     * their largest rank; plans on engines without it are not ranked.
     */
    lora: z
      .object({ adapters: count(4096), rank: count(65_536).default(16) })
      .strict()
      .optional(),
    /**
     * Weight formats you already hold a checkpoint in (made earlier, or a repository vramplan does not list):
     * plans in them count no quantize cost and are not marked as weights to make (core/plan/made-weights.ts).
     */
    haveCheckpoints: z.array(z.enum(WEIGHT_DTYPES)).min(1).optional(),
  })
  .strict();

export const jobSchema = z.discriminatedUnion('kind', [fineTuneJobSchema, inferenceJobSchema]);

export const ownedGpuSchema = z
  .object({
    gpu: id,
    count: count(4096),
    /** Purchase price per GPU for amortisation (USD); omit to count energy only. */
    priceUsd: pos.optional(),
  })
  .strict();

export const hardwareSchema = z
  .object({
    /** GPUs you already have. */
    owned: z.array(ownedGpuSchema).default([]),
    /** Add the GPUs nvidia-smi reports (also `--detect`). */
    detect: z.boolean().default(false),
    /** Rent from the offers catalog: providers and kinds to consider, or specific offer ids. */
    rent: z
      .object({
        providers: z.array(id).optional(),
        kinds: z
          .array(z.enum(['on-demand', 'spot', 'serverless', 'community', 'reserved']))
          .optional(),
        offers: z.array(id).optional(),
        gpus: z.array(id).optional(),
      })
      .strict()
      .optional(),
    /** Buy new GPUs: catalog ids ('all' for every GPU with a launch price); price defaults to the launch price. */
    buy: z
      .object({
        gpus: z.union([z.literal('all'), z.array(id).min(1)]),
        priceUsd: z.record(id, pos).optional(),
      })
      .strict()
      .optional(),
    /** GPUs per machine (node); more GPUs than this span several nodes. */
    gpusPerNode: count(64).default(8),
    /** Network between nodes, GB/s per GPU (Calculon's A100 system: InfiniBand 25 GB/s; 10 GbE = 1.25). */
    interNodeGBps: pos.default(25),
    /** GPU counts to consider. */
    counts: z
      .object({ min: count(100_000).default(1), max: count(100_000).default(8) })
      .strict()
      .prefault({}),
    /**
     * Host RAM per node, GiB (offloaded states, pinned buffers, checkpoint loading). Default: twice the
     * node's GPU memory, at least 64 GiB (core/memory/host-ram.ts DEFAULT_HOST_RAM).
     */
    hostRamGiB: pos.optional(),
  })
  .strict();

export const inlineCircuitSchema = z
  .object({
    id,
    volts: pos,
    amps: pos,
    continuousFraction: z.number().gt(0).max(1).default(0.8),
  })
  .strict();

export const powerSchema = z
  .object({
    /** Circuits the owned or bought machines plug into: catalog ids or inline definitions. Empty = unchecked. */
    circuits: z.array(z.union([id, inlineCircuitSchema])).default([]),
    electricityUsdPerKwh: z.number().min(0).default(0.16),
    psu: psuTier.default('gold'),
    /** Non-GPU DC draw per node, W (CPU + platform); default 330 W (desktop CPU 230 + platform 100, docs/reference/power.md §4). */
    systemDrawW: z.number().min(0).default(330),
    /** Power limits to consider, as fractions of board power. */
    powerLimits: z.array(z.number().min(0.3).max(1)).min(1).max(16).default([1, 0.85, 0.7]),
    /** Data-centre overhead on energy (1.0 at home). */
    pue: z.number().min(1).max(3).default(1),
    /** Amortise owned GPUs over this many years (with their priceUsd). */
    amortizeYears: pos.optional(),
  })
  .strict();

export const limitsSchema = z
  .object({
    budgetUsd: pos.optional(),
    /** Serving fleets: running cost per hour (rent, owned energy and amortisation); default budgetUsd / deadlineHours. */
    budgetUsdPerHour: pos.optional(),
    /** Largest "x fastest" allowed: a plan's hours, weights made first included, over the fastest plan's (same quality filter). */
    maxSlowdown: z.number().min(1).optional(),
    maxGpus: count(100_000).optional(),
    deadlineHours: pos.optional(),
    /** Share of each GPU's memory kept free as a safety margin (fragmentation, spikes). */
    memoryMargin: z.number().min(0).max(0.5).default(0.05),
  })
  .strict();

export const RANK_BY = ['cost', 'time', 'power', 'slowdown'] as const;

/** Axis values to search; omitted axes use the defaults of `plan` (every value that makes sense). */
export const searchSchema = z
  .object({
    weights: z.array(z.enum(WEIGHT_DTYPES)).min(1).optional(),
    optimizers: z.array(z.enum(OPTIMIZERS)).min(1).optional(),
    checkpointing: z.array(z.enum(CHECKPOINTING)).min(1).optional(),
    attention: z.array(z.enum(ATTENTION)).min(1).optional(),
    microBatches: z.array(count(4096)).min(1).optional(),
    /**
     * Compute dtypes to try beside bf16 (fp16 where a GPU has no bf16): fp8 / mxfp8 add FP8 training to full
     * fine-tunes on the engines that write it (torchtitan), on GPUs with FP8 tensor cores (MXFP8: Blackwell).
     */
    compute: z.array(z.enum(COMPUTE_DTYPES)).min(1).optional(),
    zero: z
      .array(z.union([z.literal(0), z.literal(1), z.literal(2), z.literal(3)]))
      .min(1)
      .optional(),
    offload: z
      .array(z.enum(['none', 'optimizer', 'optimizer+params']))
      .min(1)
      .optional(),
    tp: z.array(count(64)).min(1).optional(),
    pp: z.array(count(64)).min(1).optional(),
    /**
     * Narrows the engines to one family (`hf`: Trainer, FSDP, DeepSpeed; `deepspeed`) or one engine by name;
     * default: every engine vramplan launches for the job's kind (core/engines/registry.ts).
     */
    framework: registeredName<Framework | Engine>(
      () => [...frameworkNames(), ...engineNames()],
      [...FRAMEWORKS, ...ENGINES],
    ).optional(),
    /** Engines to consider; default: every engine vramplan launches for the job's kind. */
    engines: z.array(registeredName(engineNames, ENGINES)).min(1).optional(),
    /**
     * Also search the paths an engine's release runs but none of its guides describes (an engine profile's
     * zeroUndocumented: Unsloth's native FSDP2; oneMachineDocumented: Unsloth over several machines); default:
     * left out, pruned as `undocumented`.
     */
    undocumented: z.boolean().optional(),
  })
  .strict();

/** What the tests check after planning this scenario. */
export const expectSchema = z
  .object({
    fits: z.boolean().optional(),
    /** The best plan's method / GPU id / count. */
    bestMethod: z.enum(['full', 'lora', 'qlora', 'inference']).optional(),
    bestGpu: id.optional(),
    bestGpus: count(100_000).optional(),
    /** At least this many feasible plans. */
    minPlans: z.number().int().min(0).optional(),
    /** A pruning reason code that must appear. */
    prunedReason: z.string().optional(),
    /** The best plan's quality tier is at most this lossy. */
    bestQuality: z.enum(QUALITY).optional(),
    /** The best plan's engine. */
    bestEngine: registeredName(engineNames, ENGINES).optional(),
    /** The best plan's weight format (serving: int4 Marlin, fp8, a GGUF type) and tensor-parallel degree. */
    bestWeights: z.enum(WEIGHT_DTYPES).optional(),
    bestTp: count(4096).optional(),
    /** The best plan keeps (true) or does not keep (false) an fp32 master copy in its memory. */
    bestMasterWeights: z.boolean().optional(),
    /** The best plan needs host RAM for offloaded states (true) and states it. */
    bestHostRam: z.boolean().optional(),
    /** The best plan's GPU has at least this much memory, GiB. */
    bestGpuMemoryGiB: pos.optional(),
  })
  .strict();

export const scenarioSchema = z
  .object({
    $schema: z.string().optional(),
    name: z.string().min(1),
    description: z.string().optional(),
    /** Catalog id, Hugging Face repo id or a path to config.json. */
    model: z.string().min(1),
    job: jobSchema,
    hardware: hardwareSchema.prefault({}),
    power: powerSchema.prefault({}),
    limits: limitsSchema.prefault({}),
    rank: z.enum(RANK_BY).default('cost'),
    /** The least quality accepted: exact, near (default) or lossy (core/plan/quality.ts tiers). */
    quality: z.enum(QUALITY).default('near'),
    search: searchSchema.prefault({}),
    expect: expectSchema.optional(),
  })
  .strict();

/** A validated scenario with defaults applied. */
export type Scenario = z.infer<typeof scenarioSchema>;
export type ScenarioInput = z.input<typeof scenarioSchema>;
export type FineTuneJob = z.infer<typeof fineTuneJobSchema>;

export type InferenceJob = z.infer<typeof inferenceJobSchema>;
export type RankBy = (typeof RANK_BY)[number];
export type InlineCircuit = z.infer<typeof inlineCircuitSchema>;

/** JSON Schema for editors (scenarios/scenario.schema.json), from the zod schema. */
export function scenarioJsonSchema(): unknown {
  const schema = z.toJSONSchema(scenarioSchema, { io: 'input', unrepresentable: 'any' });
  describeFields(schema as Record<string, unknown>);
  return schema;
}
