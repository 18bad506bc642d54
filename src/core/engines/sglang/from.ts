/**
 * `--from` for SGLang: `python -m sglang.launch_server ...` / `sglang serve ...` (or a serve.sh holding one per
 * replica) and its `--config` YAML → contract flags (method inference, framework sglang). Flag names and
 * spellings from the server arguments reference of SGLang 0.5 (https://docs.sglang.io/docs/advanced_features/server_arguments.md:
 * --tp/--tp-size/--tensor-parallel-size, --dp, --pp-size, --context-length, --max-running-requests,
 * --mem-fraction-static, --kv-cache-dtype, --quantization, --disable-radix-cache, --config).
 */
import type { ConfigReader, ServeReader } from '../def.js';
import { programName, pythonModule } from '../../from/serve-line.js';
import { mapServeConfig, serveConfigKeys } from '../../from/serve-map.js';
import type { FromFlags } from '../../from/common.js';
import {
  parseArgs,
  switched as b,
  valued as v,
  type FlagSpec,
  type ServeCommand,
} from '../../from/serve-line.js';
import {
  ArgValues,
  contextOverrideOf,
  prefixCacheFlag,
  servedReading,
  servedWeightsInto,
  type ServeReading,
} from '../../from/serve.js';
import { speculativeFlagsInto } from '../../from/speculative.js';

export const SGLANG_FROM_FLAGS: Record<string, FlagSpec> = {
  model: v('--model-path', '--model'),
  tp: v('--tp-size', '--tensor-parallel-size', '--tp'),
  pp: v('--pp-size', '--pipeline-parallel-size'),
  dp: v('--dp-size', '--data-parallel-size', '--dp'),
  'enable-dp-attention': b('--enable-dp-attention'),
  ep: v('--ep-size', '--expert-parallel-size', '--ep'),
  // argparse takes a unique prefix of a long option (ArgumentParser allow_abbrev, on in SGLang's server_args.py):
  // SGLang's own Qwen3-Next page writes --speculative-algo NEXTN (sgl-project/sglang@104ef15a docs/basic_usage/qwen3.md).
  'speculative-algorithm': v('--speculative-algorithm', '--speculative-algo'),
  'enable-lora': b('--enable-lora'),
  'max-loras-per-batch': v('--max-loras-per-batch'),
  'max-lora-rank': v('--max-lora-rank'),
  'lora-target-modules': v('--lora-target-modules'),
  'lora-paths': v('--lora-paths'),
  'lora-backend': v('--lora-backend'),
  'speculative-draft-model-path': v('--speculative-draft-model-path'),
  'speculative-num-steps': v('--speculative-num-steps'),
  'speculative-eagle-topk': v('--speculative-eagle-topk'),
  'speculative-num-draft-tokens': v('--speculative-num-draft-tokens'),
  'context-length': v('--context-length'),
  // ModelConfig json_model_override_args: JSON merged into the HF config before the context is derived.
  'json-model-override-args': v('--json-model-override-args'),
  'max-running-requests': v('--max-running-requests'),
  'mem-fraction-static': v('--mem-fraction-static'),
  'kv-cache-dtype': v('--kv-cache-dtype'),
  quantization: v('--quantization'),
  dtype: v('--dtype'),
  'disable-radix-cache': b('--disable-radix-cache'),
  'max-total-tokens': v('--max-total-tokens'),
  config: v('--config'),
  port: v('--port'),
  host: v('--host'),
  'served-model-name': v('--served-model-name'),
  'api-key': v('--api-key'),
  'trust-remote-code': b('--trust-remote-code'),
  'log-level': v('--log-level'),
  'random-seed': v('--random-seed'),
  'enable-metrics': b('--enable-metrics'),
  // One machine's share of a replica over several (launch.ts): where it starts, not what it holds.
  nnodes: v('--nnodes'),
  'node-rank': v('--node-rank'),
  'dist-init-addr': v('--dist-init-addr'),
};
const NO_EFFECT = [
  'nnodes',
  'node-rank',
  'dist-init-addr',
  'port',
  'host',
  'served-model-name',
  'api-key',
  'trust-remote-code',
  'log-level',
  'random-seed',
  'config',
  'enable-metrics',
];

/** ServerArgs.kv_cache_dtype choices (the reference above): auto, fp8_e5m2, fp8_e4m3, bf16 / bfloat16, fp4_e2m1. */
const KV_DTYPES = ['auto', 'fp8_e5m2', 'fp8_e4m3', 'bf16', 'bfloat16', 'fp4_e2m1'] as const;

/** One SGLang server command → contract flags, its GPUs (tp x pp x dp), and what it could not map. */
export function readSglangCommand(
  c: ServeCommand,
  planFlags: Readonly<Record<string, string>>,
): ServeReading {
  const a = new ArgValues(parseArgs(c.args, SGLANG_FROM_FLAGS, true));
  const warnings: string[] = [];
  const flags: FromFlags = { method: 'inference', framework: 'sglang' };
  const ref = a.str('model') ?? null;
  const tpSize = a.int('tp') ?? 1;
  const pp = a.int('pp') ?? 1;
  const dp = a.int('dp') ?? 1;
  // --enable-dp-attention: --tp-size counts every GPU of the engine and --dp-size its attention ranks, each
  // of tp / dp GPUs (https://docs.sglang.io/docs/advanced_features/dp_dpa_smg_guide.md); --max-running-requests
  // is the engine's total, split over the ranks (sgl-project/sglang#20063).
  const dpa = a.bool('enable-dp-attention') === true && dp > 1 && tpSize % dp === 0;
  const tp = dpa ? tpSize / dp : tpSize;
  if (tp > 1) flags.tp = tp;
  if (pp > 1) flags.pp = pp;
  if (dpa) flags['dp-attention'] = true;
  const ep = a.int('ep');
  if (ep !== undefined && ep > 1) flags.ep = ep;
  const seq = a.int('context-length');
  if (seq !== undefined) flags.seq = seq;
  else
    warnings.push(
      "--context-length not given: SGLang takes the model's own context length; estimated with --seq (default 2048)",
    );
  const running = a.int('max-running-requests');
  const cap =
    running === undefined ? undefined : dpa ? Math.max(1, Math.floor(running / dp)) : running;
  if (cap !== undefined) flags.batch = cap;
  const readNote =
    '--max-running-requests not given: SGLang admits as many as its KV pool holds; estimated with --batch (default 1)';
  if (cap === undefined) warnings.push(readNote);
  // A cap on running requests: with --gpu the batch is what the pool admits (from/pool-batch.ts).
  const poolAdmission = {
    cap,
    capFlag: '--max-running-requests',
    ...(cap === undefined ? { readNote } : {}),
  };
  servedWeightsInto(a, ref, flags, warnings, 'SGLang');
  const kv = a.choice('kv-cache-dtype', KV_DTYPES);
  if (kv?.startsWith('fp8')) flags['kv-cache-dtype'] = 'fp8';
  if (kv === 'fp4_e2m1') {
    flags['kv-cache-dtype'] = 'fp8';
    warnings.push('--kv-cache-dtype fp4_e2m1: estimated as fp8 (upper bound)');
  }
  const frac = a.fraction('mem-fraction-static');
  if (frac !== undefined)
    warnings.push(
      `--mem-fraction-static ${frac}: the estimate uses SGLang's own default for the GPU given with --gpu (server_args _handle_gpu_memory_settings; vramplan launch writes that default)`,
    );
  if (a.int('max-total-tokens') !== undefined)
    warnings.push(
      '--max-total-tokens: a cap on the KV pool, not modelled (the pool fills its budget)',
    );
  sglangSpeculativeInto(a, planFlags, flags, warnings);
  sglangLoraInto(a, flags, warnings);
  prefixCacheFlag(
    a.bool('disable-radix-cache') === true ? false : undefined,
    planFlags,
    flags,
    warnings,
    'radix cache',
  );
  // DP attention: one engine of --tp-size GPUs; otherwise --dp-size replicas of tp x pp.
  const gpus = dpa ? tpSize * pp : tp * pp * dp;
  // sglang/srt/configs/model_config.py (0.5.23 wheel, lines 1291-1316): the context derives from the overridden
  // config, and SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 lets --context-length pass it.
  const context = contextOverrideOf(
    a.str('json-model-override-args'),
    '--json-model-override-args',
    c.env,
    'SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN',
    warnings,
  );
  return servedReading(a, NO_EFFECT, {
    flags,
    gpus,
    ref,
    warnings,
    poolAdmission,
    ...(context ? { context } : {}),
  });
}

/**
 * --speculative-algorithm EAGLE3 / EAGLE (over DeepSeek's NextN MTP layers without a draft path) / NGRAM with
 * --speculative-num-steps draft tokens (https://docs.sglang.io/advanced_features/speculative_decoding.html).
 */
function sglangSpeculativeInto(
  a: ArgValues,
  planFlags: Readonly<Record<string, string>>,
  flags: FromFlags,
  warnings: string[],
): void {
  const algorithm = a.str('speculative-algorithm')?.toUpperCase();
  if (algorithm === undefined) return;
  const draftPath = a.str('speculative-draft-model-path'); // the head: no effect beyond its method
  a.int('speculative-num-draft-tokens'); // steps + 1 for a chain (top-k 1)
  const method =
    algorithm === 'EAGLE3'
      ? 'eagle3'
      : algorithm === 'NGRAM'
        ? 'ngram'
        : (algorithm === 'EAGLE' || algorithm === 'NEXTN') && draftPath === undefined
          ? 'mtp'
          : null;
  if (!method)
    warnings.push(
      `--speculative-algorithm ${algorithm}: only EAGLE3, NGRAM and EAGLE over the checkpoint's MTP layers are modelled; estimated without speculation`,
    );
  if ((a.int('speculative-eagle-topk') ?? 1) > 1)
    warnings.push('--speculative-eagle-topk above 1: tree drafting timed as a chain');
  const steps = a.int('speculative-num-steps');
  speculativeFlagsInto(method, steps, planFlags, flags, warnings, '--speculative-algorithm');
}

/**
 * LoRA serving: --enable-lora (or adapters given with --lora-paths), --max-loras-per-batch (default 8),
 * --max-lora-rank (https://docs.sglang.io/advanced_features/lora.html).
 */
function sglangLoraInto(a: ArgValues, flags: FromFlags, warnings: string[]): void {
  a.str('lora-backend'); // the kernels (triton under DP attention): timed alike
  if (!a.bool('enable-lora') && a.str('lora-paths') === undefined) return;
  flags['max-loras'] = a.int('max-loras-per-batch') ?? 8;
  const rank = a.int('max-lora-rank');
  if (rank !== undefined) flags['lora-rank'] = rank;
  if ((a.str('lora-target-modules') ?? 'all') !== 'all')
    warnings.push('--lora-target-modules: adapter slots estimated over every linear module');
}

/** `--from` of SGLang server command lines. */
export const SGLANG_SERVE: ServeReader = {
  name: 'SGLang launch_server command line / --config YAML',
  start: (words, i) => {
    // sglang serve (the CLI) or python -m sglang.launch_server (docs.sglang.io server_arguments).
    if (programName(words[i]!) === 'sglang' && words[i + 1] === 'serve') return i + 2;
    if (pythonModule(words, i) === 'sglang.launch_server') return i + 3;
    return null;
  },
  read: readSglangCommand,
  flagNames: Object.values(SGLANG_FROM_FLAGS).flatMap((s) => s.names),
  configFile: true,
};

/** A `--config` YAML of the server's flags given alone: keys only SGLang's config uses (dashes or underscores). */
export const SGLANG_CONFIG: ConfigReader = {
  format: 'sglang',
  name: 'SGLang launch_server command line / --config YAML',
  // After every training tool's reader; before vLLM's (these keys win when both appear).
  order: 120,
  detect: serveConfigKeys([
    'model-path',
    'mem-fraction-static',
    'tp-size',
    'context-length',
    'max-running-requests',
    'disable-radix-cache',
  ]),
  map: (doc) => mapServeConfig(doc, 'sglang'),
};
