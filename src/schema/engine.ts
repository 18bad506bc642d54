import { registerFrameworkName, type Framework } from './estimate.js';

/**
 * The engines a plan runs on: the software that `launch` writes a config for, and whose allocations the
 * memory and time models follow. `framework` (the estimate contract) names the stack's overhead profile;
 * `engine` names the concrete launcher and sharding implementation of a ranked plan.
 */
export const ENGINES = [
  /** transformers Trainer / TRL / PEFT, one process or DDP through Accelerate; no sharding. */
  'hf-trainer',
  /** transformers Trainer + Accelerate with PyTorch FSDP (ZeRO-2/3 equivalents). */
  'hf-fsdp',
  /** transformers Trainer + DeepSpeed ZeRO 1-3 (optional CPU offload). */
  'hf-deepspeed',
  /** torchtune recipes (single device, distributed FSDP2). */
  'torchtune',
  /** torchtitan (FSDP2 + TP/PP/CP). */
  'torchtitan',
  /** LitGPT. */
  'litgpt',
  /** Unsloth (single GPU). */
  'unsloth',
  /** vLLM serving. */
  'vllm',
  /** transformers generate() (inference without a serving engine). */
  'hf-generate',
  /** SGLang serving (radix-cache paged KV pool). */
  'sglang',
  /** llama.cpp llama-server (GGUF, partial GPU offload). */
  'llama.cpp',
] as const;
/** A built-in engine's id. */
export type BuiltInEngine = (typeof ENGINES)[number];
/**
 * Ids of engines registered beside the built-in ones: a plug-in declares its id here by module augmentation
 * (`declare module '<path>/schema/engine.js' { interface PluginEngines { 'my-engine': true } }`).
 */
// eslint-disable-next-line @typescript-eslint/no-empty-object-type
export interface PluginEngines {}
/** An engine id: a built-in one, or a plug-in's registered at run time (core/engines/store.ts registerEngine). */
export type Engine = BuiltInEngine | keyof PluginEngines;

/** Every registered engine (built-in ones included) with its memory profile's framework. */
const REGISTERED = new Map<Engine, Framework>();

/** What the flags check of a registered engine, read from its profiles by core/engines/store.ts. */
export interface EngineTraits {
  /** `--gpu-layers`: it splits layers between GPU and host (its memory profile's layerOffload). */
  layerOffload?: boolean;
  /** `--kv-cache-dtype q4_0`: it writes a 4-bit KV cache (its memory profile's cacheLayout.q4KvElementBytes). */
  q4Kv?: boolean;
  /** It runs GGUF weights (its memory profile's quantFormat). */
  ggufWeights?: boolean;
  /** It serves a GGUF file dequantized to a float model as it loads (its runs' ggufDequantized). */
  ggufDequantized?: boolean;
  /** `--liger`: it loads Liger's kernels (its profile's liger). */
  liger?: boolean;
  /** `--tiled-mlp`: it loads Unsloth's tiled MLP (its profile's tiledMlp). */
  tiledMlp?: boolean;
  /** `--fsdp-version`: its launcher writes accelerate's fsdp_version (its profile's fsdpVersion). */
  fsdpVersion?: boolean;
  /** `--method lora --compute fp8`: it trains adapters over FP8 linears (its runs' float8Lora). */
  float8Lora?: boolean;
  /** `--ep` when training: it runs expert parallelism for training MoE models (its profile's ep). */
  trainingEp?: boolean;
  /** Why `--liger` does not run on it, with the engine's own source (its runs' noLiger). */
  noLiger?: string;
}
const TRAITS = new Map<Engine, EngineTraits>();

/**
 * Makes a registered engine's id and framework valid input (core/engines/store.ts registerEngine calls it for
 * every engine, the built-in ones at start-up), with the traits the flags check.
 */
export function registerEngineName(
  id: Engine,
  framework: Framework,
  traits: EngineTraits = {},
): void {
  REGISTERED.set(id, framework);
  TRAITS.set(id, traits);
  registerFrameworkName(framework);
}

/** The registered engines with `trait`, built-in ones first, in registration order. */
export const enginesWith = (trait: Exclude<keyof EngineTraits, 'noLiger'>): Engine[] =>
  engineNames().filter((e) => TRAITS.get(e)?.[trait] === true);

/** What the first registered engine of `framework` states for a text trait, or undefined. */
export const frameworkWhy = (framework: string, trait: 'noLiger'): string | undefined => {
  const e = engineNames().find((n) => REGISTERED.get(n) === framework && TRAITS.get(n)?.[trait]);
  return e === undefined ? undefined : TRAITS.get(e)?.[trait];
};

/** The frameworks of the registered engines with `trait`, each once, in the engines' order. */
export const frameworksWith = (trait: Exclude<keyof EngineTraits, 'noLiger'>): Framework[] => [
  ...new Set(enginesWith(trait).map(engineFramework)),
];

/** Every engine id the flags and scenarios accept: the built-in ones, then the plug-ins registered. */
export const engineNames = (): readonly Engine[] => [
  ...ENGINES,
  ...[...REGISTERED.keys()].filter((e) => !(ENGINES as readonly string[]).includes(e)),
];

/** The memory profile (`options.framework`) an engine's plans are estimated with (its profile's `framework`). */
export function engineFramework(e: Engine): Framework {
  const f = REGISTERED.get(e);
  if (f === undefined) throw new Error(`engine ${e} is not registered`);
  return f;
}

export const isEngine = (s: unknown): s is Engine =>
  typeof s === 'string' &&
  ((ENGINES as readonly string[]).includes(s) || REGISTERED.has(s as Engine));
