/**
 * `--from` for vLLM: a `vllm serve <model> ...` command line (or a serve.sh holding one per replica) and vLLM's
 * `--config` YAML → contract flags (method inference, framework vllm). Flag names and defaults as read in
 * vllm/engine/arg_utils.py at commit 99d7eb5d (EngineArgs, add_cli_args, _set_default_args) and
 * vllm/utils/argparse_utils.py at 00da11e3 (FlexibleArgumentParser: `_` for `-`, --config YAML).
 */
import type { ConfigReader, ServeReader } from '../def.js';
import { programName, pythonModule } from '../../from/serve-line.js';
import { mapServeConfig, serveConfigKeys } from '../../from/serve-map.js';
import { FromError, type FromFlags } from '../../from/common.js';
import {
  parseArgs,
  switched as b,
  valued as v,
  type FlagSpec,
  type ServeCommand,
} from '../../from/serve-line.js';
import {
  VLLM_DEFAULT_MAX_NUM_SEQS as DEFAULT_MAX_NUM_SEQS,
  VLLM_GPU_UTILIZATION,
} from './memory.js';
import {
  ArgValues,
  contextOverrideOf,
  prefixCacheFlag,
  servedReading,
  servedWeightsInto,
  type ServeReading,
} from '../../from/serve.js';
import { speculativeFlagsInto, vllmSpeculativeMethod } from '../../from/speculative.js';

/** The `vllm serve` flags the reader maps or knows to have no memory effect. */
export const VLLM_FROM_FLAGS: Record<string, FlagSpec> = {
  model: v('--model'),
  tp: v('--tensor-parallel-size', '-tp'),
  pp: v('--pipeline-parallel-size', '-pp'),
  dp: v('--data-parallel-size', '-dp'),
  dcp: v('--decode-context-parallel-size', '-dcp'),
  'enable-expert-parallel': b('--enable-expert-parallel'),
  'enable-eplb': b('--enable-eplb'),
  'eplb-config': v('--eplb-config'),
  'speculative-config': v('--speculative-config'),
  'enable-lora': b('--enable-lora'),
  'max-loras': v('--max-loras'),
  'max-lora-rank': v('--max-lora-rank'),
  'lora-modules': v('--lora-modules'),
  'max-model-len': v('--max-model-len'),
  'max-num-seqs': v('--max-num-seqs'),
  dtype: v('--dtype'),
  'kv-cache-dtype': v('--kv-cache-dtype'),
  'block-size': v('--block-size'),
  quantization: v('--quantization', '-q'),
  'moe-backend': v('--moe-backend'),
  'gpu-memory-utilization': v('--gpu-memory-utilization'),
  'enable-prefix-caching': b('--enable-prefix-caching'),
  'cpu-offload-gb': v('--cpu-offload-gb'),
  'enforce-eager': b('--enforce-eager'),
  // ModelConfig.hf_overrides: JSON merged into the HF config before the max length is derived (from/serve.ts).
  'hf-overrides': v('--hf-overrides'),
  // EngineArgs.rope_scaling at 99d7eb5d: merged into hf_overrides as rope_scaling.
  'rope-scaling': v('--rope-scaling'),
  config: v('--config'),
  // No effect on per-GPU memory or time: the server's address, names, logging, tokenizer.
  port: v('--port'),
  host: v('--host'),
  'served-model-name': v('--served-model-name'),
  'api-key': v('--api-key'),
  seed: v('--seed'),
  revision: v('--revision'),
  tokenizer: v('--tokenizer'),
  'download-dir': v('--download-dir'),
  'trust-remote-code': b('--trust-remote-code'),
  'disable-log-requests': b('--disable-log-requests'),
  'enable-log-requests': b('--enable-log-requests'),
  'disable-log-stats': b('--disable-log-stats'),
  // One machine's share of a replica over several (launch.ts vllmNodeFlags): where it starts, not what it holds.
  nnodes: v('--nnodes'),
  'node-rank': v('--node-rank'),
  'master-addr': v('--master-addr'),
  headless: b('--headless'),
  'data-parallel-size-local': v('--data-parallel-size-local', '-dpl'),
  'data-parallel-start-rank': v('--data-parallel-start-rank', '-dpr'),
  'data-parallel-address': v('--data-parallel-address', '-dpa'),
  'data-parallel-rpc-port': v('--data-parallel-rpc-port', '-dpp'),
};
const NO_EFFECT = [
  'nnodes',
  'node-rank',
  'master-addr',
  'headless',
  'data-parallel-size-local',
  'data-parallel-start-rank',
  'data-parallel-address',
  'data-parallel-rpc-port',
  'port',
  'host',
  'served-model-name',
  'api-key',
  'seed',
  'revision',
  'tokenizer',
  'download-dir',
  'trust-remote-code',
  'disable-log-requests',
  'enable-log-requests',
  'disable-log-stats',
  'config',
];

/** CacheDType at 99d7eb5d (vllm/config/cache.py): fp8 (E4M3), fp8_e4m3, fp8_e5m2 and the two fp8 variants. */
const KV_DTYPES = [
  'auto',
  'bfloat16',
  'fp8',
  'fp8_e4m3',
  'fp8_e5m2',
  'fp8_inc',
  'fp8_ds_mla',
] as const;

/** --speculative-config JSON (SpeculativeConfig: method, num_speculative_tokens) → --speculative flags. */
function speculativeInto(
  json: string | undefined,
  planFlags: Readonly<Record<string, string>>,
  flags: FromFlags,
  warnings: string[],
): void {
  if (json === undefined) return;
  let c: unknown;
  try {
    c = JSON.parse(json);
  } catch {
    c = null;
  }
  const cfg = c !== null && typeof c === 'object' ? (c as Record<string, unknown>) : {};
  const method = vllmSpeculativeMethod(cfg.method);
  if (!method) {
    warnings.push(
      `--speculative-config ${json}: only the eagle3, mtp and ngram methods are modelled; estimated without speculation`,
    );
    return;
  }
  const k = cfg.num_speculative_tokens;
  const tokens = typeof k === 'number' && Number.isInteger(k) && k >= 1 && k <= 64 ? k : undefined;
  speculativeFlagsInto(method, tokens, planFlags, flags, warnings, '--speculative-config');
}

const PARALLEL_CONFIG =
  'https://github.com/vllm-project/vllm/blob/00193b82b0e2d4faea5d3b4ea4f6c4c2bd9d057a/vllm/config/parallel.py';

/**
 * EPLBConfig.num_redundant_experts (default 0) from `--eplb-config` JSON or its dotted form
 * (`--eplb-config.num_redundant_experts 2`, FlexibleArgumentParser); 0 where neither gives a positive integer.
 */
function redundantExperts(json: string | undefined, args: readonly string[]): number {
  const dotted = args.findIndex((w) =>
    /^--eplb[-_]config\.num[-_]redundant[-_]experts(=|$)/.test(w),
  );
  let n: unknown;
  if (dotted >= 0) n = Number(args[dotted]!.split('=')[1] ?? args[dotted + 1]);
  else
    try {
      n = (JSON.parse(json ?? '{}') as Record<string, unknown>).num_redundant_experts;
    } catch {
      n = 0;
    }
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : 0;
}

/**
 * --enable-eplb and --eplb-config as ParallelConfig._validate_parallel_config (vllm/config/parallel.py at 00193b82)
 * takes them: EPLB raises without --enable-expert-parallel or over one rank, and redundant experts without EPLB.
 */
function eplbInto(a: ArgValues, args: readonly string[], ranks: number, warnings: string[]): void {
  const eplb = a.bool('enable-eplb');
  const redundant = redundantExperts(a.str('eplb-config'), args);
  if (eplb && !a.bool('enable-expert-parallel'))
    throw new FromError(
      '--enable-eplb',
      true,
      `--enable-expert-parallel beside it: vLLM raises "enable_expert_parallel must be True to use EPLB." (ParallelConfig._validate_parallel_config, ${PARALLEL_CONFIG})`,
    );
  if (eplb && ranks <= 1)
    throw new FromError(
      '--enable-eplb',
      `TP=1, DP=1`,
      `--tensor-parallel-size or --data-parallel-size above 1: vLLM raises "EPLB requires tensor, prefill-context, or data parallelism" (${PARALLEL_CONFIG})`,
    );
  if (!eplb && redundant > 0)
    throw new FromError(
      '--eplb-config num_redundant_experts',
      redundant,
      `0 without --enable-eplb: vLLM raises "num_redundant_experts is set to ${redundant} but EPLB is not enabled" (${PARALLEL_CONFIG})`,
    );
  if (redundant > 0)
    warnings.push(
      `--eplb-config num_redundant_experts ${redundant}: the redundant experts' weights (${redundant} more experts per MoE layer over the ${ranks} EP ranks) are not counted`,
    );
}

/** One `vllm serve` command's words → contract flags, its GPUs, and what it could not map. */
export function readVllmCommand(
  c: ServeCommand,
  planFlags: Readonly<Record<string, string>>,
): ServeReading {
  const a = new ArgValues(parseArgs(c.args, VLLM_FROM_FLAGS, true));
  const warnings: string[] = [];
  const flags: FromFlags = { method: 'inference', framework: 'vllm' };
  const ref = a.str('model') ?? a.parsed.positionals[0] ?? null;
  const tp = a.int('tp') ?? 1;
  const pp = a.int('pp') ?? 1;
  const dp = a.int('dp') ?? 1;
  if (tp > 1) flags.tp = tp;
  if (pp > 1) flags.pp = pp;
  // --enable-expert-parallel: whole experts over the tp x dp ranks, attention TP (FusedMoEParallelConfig.make, 0.33.0
  // fused_moe/config.py); with --data-parallel-size one engine: DP attention (vllm/config/parallel.py at 00193b82).
  if (a.bool('enable-expert-parallel')) {
    if (dp > 1) flags['dp-attention'] = true;
    flags.ep = tp * dp;
  }
  eplbInto(a, c.args, tp * dp, warnings);
  if ((a.int('dcp') ?? 1) > 1)
    warnings.push('--decode-context-parallel-size: decode context parallelism is not modelled');
  const seq = a.int('max-model-len', 1, true);
  if (seq !== undefined) flags.seq = seq;
  else
    warnings.push(
      "--max-model-len not given: vLLM takes the model's own context length; estimated with --seq (default 2048)",
    );
  const seqs = a.int('max-num-seqs');
  flags.batch = seqs ?? DEFAULT_MAX_NUM_SEQS;
  const readNote = `--max-num-seqs not given: vLLM's default is ${DEFAULT_MAX_NUM_SEQS} (1024 on 70 GiB GPUs other than A100); estimated with ${DEFAULT_MAX_NUM_SEQS}`;
  if (seqs === undefined) warnings.push(readNote);
  // A cap on running requests, not a concurrency: with --gpu the batch is what the pool admits (from/pool-batch.ts).
  const poolAdmission = {
    cap: seqs,
    capFlag: '--max-num-seqs',
    ...(seqs === undefined ? { readNote } : {}),
  };
  servedWeightsInto(a, ref, flags, warnings, 'vLLM');
  // --moe-backend (KernelConfig.moe_backend, vllm/config/kernel.py at 0.33.0): `marlin` is the MoE the estimate times
  // for MXFP4 experts below compute capability 10.0 (time/decode.ts kernelOn), what vramplan's launch writes there
  // (launch.ts mxfp4MoeBackendArgs); any other backend is not timed as named.
  const moeBackend = a.str('moe-backend');
  if (moeBackend !== undefined && moeBackend !== 'marlin' && moeBackend !== 'auto')
    warnings.push(
      `--moe-backend ${moeBackend}: the MoE kernel is timed as the estimate's default for the weights (Marlin for MXFP4 experts below compute capability 10.0), not as ${moeBackend}`,
    );
  const kv = a.choice('kv-cache-dtype', KV_DTYPES);
  if (kv?.startsWith('fp8')) flags['kv-cache-dtype'] = 'fp8';
  const block = a.int('block-size');
  if (block !== undefined) flags['kv-block-size'] = block;
  const util = a.fraction('gpu-memory-utilization');
  if (util !== undefined && util !== VLLM_GPU_UTILIZATION)
    warnings.push(
      `--gpu-memory-utilization ${util}: the estimate sizes vLLM's KV pool at its default ${VLLM_GPU_UTILIZATION} of each GPU`,
    );
  if ((Number(a.str('cpu-offload-gb') ?? 0) || 0) > 0)
    warnings.push(
      '--cpu-offload-gb: weights offloaded to the CPU are not modelled (counted on the GPU)',
    );
  if (a.bool('enforce-eager'))
    warnings.push('--enforce-eager: CUDA graphs off; timed as with them');
  speculativeInto(a.str('speculative-config'), planFlags, flags, warnings);
  // --enable-lora: LoRAConfig max_loras (default 1) and max_lora_rank (default 16), vllm/config/lora.py.
  if (a.bool('enable-lora')) {
    flags['max-loras'] = a.int('max-loras') ?? 1;
    flags['lora-rank'] = a.int('max-lora-rank') ?? 16;
    a.str('lora-modules'); // the adapters' names and paths: their slots are what memory holds
  }
  prefixCacheFlag(
    a.bool('enable-prefix-caching'),
    planFlags,
    flags,
    warnings,
    '--enable-prefix-caching',
  );
  const context = vllmContext(a, c, warnings);
  return servedReading(a, NO_EFFECT, {
    flags,
    gpus: tp * pp * dp,
    ref,
    warnings,
    poolAdmission,
    ...(context ? { context } : {}),
  });
}

/**
 * The context a `vllm serve` line gives the model beyond its config: vllm/config/model.py _get_and_verify_max_len
 * (0052a5b8) derives the length from the config --hf-overrides merges (--rope-scaling sets its rope_scaling), and
 * VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 lets --max-model-len pass it.
 */
function vllmContext(a: ArgValues, c: ServeCommand, warnings: string[]): ServeReading['context'] {
  const overrides = contextOverrideOf(
    a.str('hf-overrides'),
    '--hf-overrides',
    c.env,
    'VLLM_ALLOW_LONG_MAX_MODEL_LEN',
    warnings,
  );
  const rope = a.str('rope-scaling');
  const scaled =
    rope === undefined
      ? undefined
      : contextOverrideOf(`{"rope_scaling":${rope}}`, '--rope-scaling', {}, '', warnings)?.config;
  return scaled ? { ...overrides, config: { ...overrides?.config, ...scaled } } : overrides;
}

/** `--from` of vLLM server command lines. */
export const VLLM_SERVE: ServeReader = {
  name: 'vLLM serve command line / --config YAML',
  start: (words, i) => {
    const base = programName(words[i]!);
    // vllm serve <model> (vllm/entrypoints/cli/serve.py); the older OpenAI server module.
    if (base === 'vllm' && words[i + 1] === 'serve') return i + 2;
    if (pythonModule(words, i) === 'vllm.entrypoints.openai.api_server') return i + 3;
    // The vllm/vllm-openai image's entrypoint is `vllm serve` (docs.vllm.ai deployment/docker).
    if (i > 0 && /^vllm-openai(:|$)/.test(base)) return i + 1;
    return null;
  },
  read: readVllmCommand,
  flagNames: Object.values(VLLM_FROM_FLAGS).flatMap((s) => s.names),
  configFile: true,
};

/** A `--config` YAML of the server's flags given alone: keys only vLLM's config uses (dashes or underscores). */
export const VLLM_CONFIG: ConfigReader = {
  format: 'vllm',
  name: 'vLLM serve command line / --config YAML',
  // After every training tool's reader and SGLang's (whose keys win when both appear).
  order: 121,
  detect: serveConfigKeys([
    'tensor-parallel-size',
    'max-model-len',
    'gpu-memory-utilization',
    'max-num-seqs',
    'enable-prefix-caching',
  ]),
  map: (doc) => mapServeConfig(doc, 'vllm'),
};
