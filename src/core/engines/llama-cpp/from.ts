/**
 * `--from` for llama.cpp: a `llama-server -m x.gguf -ngl N -c N -np N ...` line (or a serve.sh holding one per
 * server) → contract flags (method inference, framework llama.cpp). Flag spellings from common/arg.cpp and
 * tools/server/README.md (llama.cpp 25d5b0c5; -sm/-ts/--cache-reuse as at 145b6280).
 */
import type { ServeReader } from '../def.js';
import { isGguf } from '../../../schema/estimate.js';
import { programName } from '../../from/serve-line.js';
import { benchAsServerCommand } from './bench.js';
import { FromError, type FromFlags } from '../../from/common.js';
import {
  parseArgs,
  switched as b,
  valued as v,
  type FlagSpec,
  type ServeCommand,
} from '../../from/serve-line.js';
import {
  ArgValues,
  prefixCacheFlag,
  servedReading,
  weightsFromName,
  type ServeReading,
} from '../../from/serve.js';

export const LLAMA_SERVER_FROM_FLAGS: Record<string, FlagSpec> = {
  model: v('-m', '--model'),
  hf: v('-hf', '-hfr', '--hf-repo'),
  ngl: v('-ngl', '--gpu-layers', '--n-gpu-layers'),
  'cpu-moe': b('-cmoe', '--cpu-moe'),
  'n-cpu-moe': v('-ncmoe', '--n-cpu-moe'),
  'override-tensor': v('-ot', '--override-tensor'),
  ctx: v('-c', '--ctx-size'),
  parallel: v('-np', '--parallel'),
  'cache-type-k': v('-ctk', '--cache-type-k'),
  'cache-type-v': v('-ctv', '--cache-type-v'),
  'flash-attn': v('-fa', '--flash-attn'),
  'split-mode': v('-sm', '--split-mode'),
  'tensor-split': v('-ts', '--tensor-split'),
  'main-gpu': v('-mg', '--main-gpu'),
  'cache-reuse': v('--cache-reuse'),
  lora: v('--lora'),
  // --lora-scaled FNAME SCALE: the file is read as its value, the scale stays a positional word.
  'lora-scaled': v('--lora-scaled'),
  'kv-unified': b('-kvu', '--kv-unified'),
  host: v('--host'),
  port: v('--port'),
  threads: v('-t', '--threads'),
  alias: v('-a', '--alias'),
  'api-key': v('--api-key'),
  jinja: b('--jinja'),
  metrics: b('--metrics'),
  mmproj: v('-mm', '--mmproj'),
  'no-mmproj': b('--no-mmproj', '--no-mmproj-auto'),
};
const NO_EFFECT = [
  'host',
  'port',
  'threads',
  'alias',
  'api-key',
  'jinja',
  'main-gpu',
  'kv-unified',
  'metrics',
  // The text model alone, as the estimate counts it without --images.
  'no-mmproj',
];

/** KV cache types llama.cpp takes (common/arg.cpp kv_cache_types): 16-bit ones are auto, 8-bit and below fp8. */
const KV_TYPES = ['f32', 'f16', 'bf16', 'q8_0', 'q4_0', 'q4_1', 'iq4_nl', 'q5_0', 'q5_1'] as const;
// --split-mode: none, layer (default), row (deprecated) and tensor (newer builds: docs/multi-gpu.md, ggml-org/llama.cpp#22729).
const SPLIT_MODES = ['none', 'layer', 'row', 'tensor'] as const;

/**
 * The LoRA adapters one llama-server loads: `--lora FNAME` may be repeated, and `--lora-scaled FNAME SCALE` adds
 * one more each (tools/server/README.md at 25d5b0c5); the argument parser keeps one value per flag, so count here.
 */
export function loraAdapters(args: readonly string[]): number {
  let n = 0;
  for (const w of args) if (w === '--lora' || w.startsWith('--lora=') || w === '--lora-scaled') n++;
  return n;
}

/**
 * `-fa`/`--flash-attn` written bare, as llama.cpp builds before it took a value did (ggml-org/llama.cpp#15077,
 * ggml-org/llama.cpp#15253): read as `on`, the setting those commands ran with. At 25d5b0c5 the flag takes
 * on|off|auto (common/arg.cpp), so the same line takes the next flag as its value and exits ("unknown value for
 * --flash-attn"); the warning says so.
 */
function bareFlashAttn(args: readonly string[], warnings: string[]): readonly string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    out.push(w);
    const next = args[i + 1];
    if ((w === '-fa' || w === '--flash-attn') && (next === undefined || /^--?[a-z]/i.test(next))) {
      out.push('on');
      warnings.push(
        `${w} without a value: read as ${w} on (older builds' switch); llama-server at 25d5b0c5 takes on|off|auto and would read ${next ?? 'nothing'} as its value (https://github.com/ggml-org/llama.cpp/blob/25d5b0c53f9a146f3d7a99a18610d9d623b5041e/common/arg.cpp)`,
      );
    }
  }
  return out;
}

/** --n-cpu-moe's value for every layer's experts (--cpu-moe): past any model's layer count, clamped to it. */
const EVERY_LAYER = 100_000;

/** Layer indices an override is tried on: past any released model's block count (DeepSeek-V3 61, Llama 3.1 405B 126). */
const OVERRIDE_LAYERS = 1024;
/** The MoE expert weights of block i, as llama.cpp names them (--cpu-moe's pattern: \.ffn_(up|down|gate)_exps). */
const EXPERT_TENSORS = ['up', 'gate', 'down'].map(
  (t) => (i: number) => `blk.${i}.ffn_${t}_exps.weight`,
);
/** Tensors besides the experts that an override may send to the host: attention, dense FFN, embeddings, output. */
const OTHER_TENSORS = [
  'blk.0.attn_q.weight',
  'blk.0.ffn_up.weight',
  'token_embd.weight',
  'output.weight',
];

/**
 * The layers whose expert weights `-ot/--override-tensor <regex>=<buffer type>,...` (with --cpu-moe and
 * --n-cpu-moe, which llama.cpp turns into the same overrides, in command-line order) put in host RAM: llama.cpp
 * tries each tensor's name against the overrides in order with std::regex_search (ECMAScript grammar, as a
 * JavaScript RegExp) and the first match names its buffer (common/arg.cpp --override-tensor, --cpu-moe,
 * --n-cpu-moe and src/llama-model.cpp tensor_buft_overrides at 25d5b0c5). All layers give EVERY_LAYER (as --cpu-moe);
 * a set other than the first N layers is counted as the first N, each MoE layer's experts being the same size.
 */
export function hostExpertLayers(args: readonly string[], warnings: string[]): number {
  const overrides: { re: RegExp; host: boolean }[] = [];
  const add = (pattern: string, buffer: string): void => {
    let re: RegExp;
    try {
      re = new RegExp(pattern);
    } catch {
      throw new FromError(
        '--override-tensor',
        pattern,
        'a regular expression (std::regex, ECMAScript)',
      );
    }
    overrides.push({ re, host: /^cpu/i.test(buffer.trim()) });
  };
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const eq = /^(-ot|--override-tensor)=(.*)$/.exec(w);
    const value = eq ? eq[2]! : w === '-ot' || w === '--override-tensor' ? args[++i] : undefined;
    if (value !== undefined)
      for (const entry of value.split(',').filter((e) => e.trim() !== '')) {
        const at = entry.lastIndexOf('=');
        if (at <= 0)
          throw new FromError('--override-tensor', entry, '<tensor name pattern>=<buffer type>');
        add(entry.slice(0, at), entry.slice(at + 1));
      }
    else if (w === '-cmoe' || w === '--cpu-moe') add('\\.ffn_(up|down|gate)_exps', 'CPU');
    else if (w === '-ncmoe' || w === '--n-cpu-moe' || /^--n-cpu-moe=/.test(w)) {
      const n = Number(w.includes('=') ? w.slice(w.indexOf('=') + 1) : args[++i]);
      for (let l = 0; Number.isInteger(n) && l < Math.min(n, OVERRIDE_LAYERS); l++)
        add(`blk\\.${l}\\.ffn_(up|down|gate)_exps`, 'CPU');
    }
  }
  const onHost = (name: string): boolean => overrides.find((o) => o.re.test(name))?.host ?? false;
  const layers: number[] = [];
  for (let l = 0; l < OVERRIDE_LAYERS; l++)
    if (EXPERT_TENSORS.filter((t) => onHost(t(l))).length >= 2) layers.push(l);
  if (OTHER_TENSORS.some(onHost))
    warnings.push(
      '--override-tensor: tensors other than the MoE experts in host RAM are not modelled (counted on the GPU)',
    );
  if (layers.length === OVERRIDE_LAYERS) return EVERY_LAYER;
  if (layers.some((l, i) => l !== i))
    warnings.push(
      `--override-tensor: the experts of ${layers.length} layers other than the first ${layers.length} in host RAM, estimated as the first ${layers.length} (--n-cpu-moe ${layers.length})`,
    );
  return layers.length;
}

/** The GPUs one llama-server uses: CUDA_VISIBLE_DEVICES, else the --tensor-split entries, else one. */
function gpusOf(c: ServeCommand, a: ArgValues, mode: string | undefined): number {
  if (mode === 'none') return 1;
  const visible = c.env.CUDA_VISIBLE_DEVICES;
  if (visible !== undefined && !visible.includes('$'))
    return Math.max(1, visible.split(',').filter((x) => x.trim() !== '').length);
  const ts = a.str('tensor-split');
  return ts ? ts.split(/[,/]/).filter((x) => Number(x) > 0).length || 1 : 1;
}

/** --cpu-moe keeps every layer's experts on the host, --n-cpu-moe N the first N layers' (common/arg.cpp). */
function readHostExperts(
  c: ServeCommand,
  a: ArgValues,
  flags: FromFlags,
  warnings: string[],
): void {
  if (a.has('override-tensor')) {
    a.str('override-tensor');
    const host = hostExpertLayers(c.args, warnings);
    if (host > 0) {
      flags['n-cpu-moe'] = host;
      warnings.push(
        `--override-tensor: the MoE experts it puts in host RAM read as ${host === EVERY_LAYER ? '--cpu-moe (every layer)' : `--n-cpu-moe ${host}`}`,
      );
    }
  } else if (a.has('cpu-moe')) flags['n-cpu-moe'] = EVERY_LAYER;
  else if (a.has('n-cpu-moe')) flags['n-cpu-moe'] = a.int('n-cpu-moe', 0)!;
}

/**
 * Both K and V in q4_0 blocks: the 4-bit cache (block_q4_0, 18 bytes a 32); any other quantized type, or K and V
 * apart: the q8_0 cache, an upper bound below 8 bits (ggml/src/ggml-common.h at 25d5b0c5).
 */
function readKvTypes(a: ArgValues, flags: FromFlags, warnings: string[]): void {
  const k = a.choice('cache-type-k', KV_TYPES);
  const vt = a.choice('cache-type-v', KV_TYPES);
  if (k === 'q4_0' && (vt ?? 'f16') === 'q4_0') flags['kv-cache-dtype'] = 'q4_0';
  else if ([k, vt].some((t) => (t !== undefined && t.startsWith('q')) || t === 'iq4_nl')) {
    flags['kv-cache-dtype'] = 'fp8';
    if ([k, vt].some((t) => t !== undefined && t !== 'q8_0' && /^(q|iq)/.test(t)))
      warnings.push('a KV cache type below 8 bits: estimated as 8-bit (upper bound)');
  }
  if (k === 'f32' || vt === 'f32') warnings.push('an f32 KV cache: estimated as 16-bit');
}

/**
 * GGUF types vramplan has no type of, read as the nearest one it has (with a note). Unsloth's Dynamic 2.0
 * "UD-Q4_K_XL": Q4_K blocks, with the tensors its calibration keeps higher at 5-6 bits, a mix near Q4_K_M's (Q4_K
 * with Q6_K for half of attn_v/ffn_down): Unsloth's Llama-4-Scout table gives its Q4_K_XL 65.6 GB for 109B
 * parameters, 4.8 bits a weight ("4.5bit", MoE/other bits 4.5/5.5; https://docs.unsloth.ai/basics/tutorial-how-to-run-and-fine-tune-llama-4).
 * IQ4_NL: one fp16 scale and 16 bytes of 4-bit codebook indices a block of 32, the 18 bytes of Q4_0's block; IQ4_XS:
 * 136 bytes a 256-weight super-block (fp16 scale, 6-bit sub-block scales, 128 bytes of indices), 4.25 bits a weight,
 * under Q4_0's 4.5 (block_iq4_nl, block_iq4_xs: ggml/src/ggml-common.h, ggml-org/llama.cpp).
 * The low-bit files without a mix of their own go to the mix at or above their blocks (ggml-common.h: IQ1_M 56 B,
 * IQ2_XS 74 B, IQ2_S 82 B, IQ3_S 110 B a 256; Q3_K_S and Q3_K_L are Q3_K_M's Q3_K with fewer or more tensors raised,
 * src/llama-quant.cpp). Unsloth's UD-Q2_K_XL / UD-Q3_K_XL: Q2_K / Q3_K experts with attention and the dense layers
 * kept at 4-6 bits (https://unsloth.ai/blog/deepseekr1-dynamic: DeepSeek-R1 UD-IQ1_S 131GB, UD-IQ1_M 158GB,
 * UD-IQ2_XXS 183GB, UD-Q2_K_XL 212GB; the llama.cpp mixes price that model at 136, 176, 176 and 244 GB).
 */
const GGUF_NEAREST: readonly { name: RegExp; weights: string; note: string }[] = [
  {
    name: /q4_k_xl/i,
    weights: 'q4_k_m',
    note: "the GGUF is Unsloth's Dynamic UD-Q4_K_XL (Q4_K blocks, some tensors at 5-6 bits): estimated as q4_k_m, the llama.cpp mix nearest it (give --weights to change)",
  },
  {
    name: /iq4_nl/i,
    weights: 'q4_0',
    note: "the GGUF is IQ4_NL: estimated as q4_0, whose 18-byte block of 32 weights it shares (a codebook in place of Q4_0's linear scale; give --weights to change)",
  },
  {
    name: /iq4_xs/i,
    weights: 'q4_0',
    note: 'the GGUF is IQ4_XS (4.25 bits a weight): estimated as q4_0 (4.5 bits), about 6% over its weights (give --weights to change)',
  },
  {
    name: /q2_k_(xl|l|s)/i,
    weights: 'q2_k',
    note: "the GGUF is a Q2_K variant (Unsloth's UD-Q2_K_XL, Q2_K_L or llama.cpp's Q2_K_S: Q2_K blocks, other tensors raised): estimated as q2_k, llama.cpp's Q2_K mix (Unsloth's DeepSeek-R1 UD-Q2_K_XL is 212 GB, the mix 244 GB; give --weights to change)",
  },
  {
    name: /q3_k_(xl|l|s)/i,
    weights: 'q3_k_m',
    note: "the GGUF is a Q3_K variant (Unsloth's UD-Q3_K_XL, Q3_K_L or Q3_K_S: Q3_K blocks, other tensors raised): estimated as q3_k_m, llama.cpp's Q3_K_M mix (give --weights to change)",
  },
  {
    name: /iq1_m/i,
    weights: 'iq2_xxs',
    note: 'the GGUF is IQ1_M (1.75 bits a weight): estimated as iq2_xxs (2.06 bits), the mix at or above its blocks (give --weights to change)',
  },
  {
    name: /iq2_(xs|s)(?![a-z])/i,
    weights: 'iq2_m',
    note: 'the GGUF is IQ2_XS or IQ2_S (2.31 / 2.56 bits a weight): estimated as iq2_m, whose tensors are IQ2_S and above (give --weights to change)',
  },
  {
    name: /iq3_(xs|s)(?![a-z])/i,
    weights: 'iq3_m',
    note: 'the GGUF is IQ3_XS or IQ3_S: estimated as iq3_m, whose tensors are IQ3_S (3.44 bits a weight) and above (give --weights to change)',
  },
];

/** Unsloth's Dynamic files named with a llama.cpp type (UD-IQ1_S, UD-IQ2_XXS, UD-IQ3_XXS, ...): that type's mix. */
const UD_NOTE =
  "the GGUF is an Unsloth Dynamic (UD-) file: estimated as llama.cpp's mix of the type it names; Unsloth keeps attention and the dense layers at 4-6 bits (https://unsloth.ai/blog/deepseekr1-dynamic; give --weights to change)";

/** One llama-server command → contract flags, its GPUs (layer split = pipeline stages), what it could not map. */
export function readLlamaServerCommand(
  c: ServeCommand,
  planFlags: Readonly<Record<string, string>>,
): ServeReading {
  const warnings: string[] = [];
  // A llama-bench line starts at its program word (LLAMA_CPP_SERVE.start): the test it runs, as a server line.
  const cmd = benchAsServerCommand(c, warnings);
  const a = new ArgValues(parseArgs(bareFlashAttn(cmd.args, warnings), LLAMA_SERVER_FROM_FLAGS));
  const flags: FromFlags = { method: 'inference', framework: 'llama.cpp' };
  const file = a.str('model');
  const hf = a.str('hf');
  // -hf <repo>[:quant] (common/arg.cpp): the quant after the colon names the GGUF file.
  const ref = hf ?? file ?? null;
  const weights = ref ? weightsFromName(ref) : null;
  // A GGUF type in the name, or an MXFP4 GGUF (gpt-oss: ggml-org/gpt-oss-*-GGUF, launch.ts MXFP4_GGUF).
  const nearest = ref ? GGUF_NEAREST.find((g) => g.name.test(ref)) : undefined;
  if ((weights !== null && isGguf(weights)) || weights === 'mxfp4') {
    flags.weights = weights;
    if (ref && /(^|[-_/:])ud-/i.test(ref)) warnings.push(UD_NOTE);
  } else if (nearest) {
    flags.weights = nearest.weights;
    warnings.push(nearest.note);
  } else if (ref && /f16|fp16/i.test(ref)) flags.weights = 'fp16';
  else if (ref && /bf16/i.test(ref)) flags.weights = 'bf16';
  else if (hf !== undefined && !hf.includes(':')) {
    // -hf <user>/<model> without :quant loads the repository's Q4_K_M file, else its first GGUF (tools/server/README.md
    // -hf at 25d5b0c5: "quant is optional, case-insensitive, default to Q4_K_M").
    flags.weights = 'q4_k_m';
    warnings.push(
      "-hf without :quant: llama-server loads the repository's Q4_K_M GGUF (or its first file where it has none); estimated as q4_k_m",
    );
  } else
    warnings.push(
      'the GGUF type is not in the file name: estimated as --weights (give q4_k_m, q8_0, ...)',
    );
  const parallel = a.int('parallel') ?? 1;
  if (!a.has('parallel'))
    warnings.push(
      '-np not given: estimated with one slot (give --batch for the slots llama-server picks)',
    );
  flags.batch = parallel;
  // -c is the context of all slots together; each slot gets c / np (tools/server/README.md).
  const ctx = a.int('ctx', 0);
  if (ctx !== undefined && ctx > 0) flags.seq = Math.max(1, Math.floor(ctx / parallel));
  else
    warnings.push(
      "-c not given (or 0): llama-server takes the model's context; estimated with --seq (default 2048)",
    );
  const ngl = a.str('ngl');
  if (ngl !== undefined && !/^(all|auto|-1)$/.test(ngl)) flags['gpu-layers'] = a.int('ngl', 0)!;
  readHostExperts(cmd, a, flags, warnings);
  readKvTypes(a, flags, warnings);
  const mode = a.choice('split-mode', SPLIT_MODES);
  const gpus = gpusOf(cmd, a, mode);
  // --split-mode layer (the default) puts consecutive layers on each GPU: a pipeline without overlap.
  if (gpus > 1) flags.pp = gpus;
  if (gpus > 1 && (mode === 'row' || mode === 'tensor'))
    warnings.push(
      `--split-mode ${mode}: estimated as a layer split (weights and KV per GPU alike; time sequential)`,
    );
  const shares = (a.str('tensor-split') ?? '').split(/[,/]/).filter((x) => x.trim() !== '');
  if (gpus > 1 && new Set(shares.map(Number)).size > 1)
    warnings.push('--tensor-split: an uneven split, estimated as an even one');
  a.str('flash-attn');
  const adapters = loraAdapters(cmd.args);
  a.str('lora');
  a.str('lora-scaled');
  // Requests name their adapter; llama-server batches only slots whose adapters match (server.cpp can_batch_with).
  if (adapters > 0) flags['max-loras'] = adapters;
  // The vision tower's own GGUF (memory.ts visionFile): counted, with its activations, where --images N says
  // how many images a request carries.
  if (a.str('mmproj') !== undefined)
    warnings.push(
      "--mmproj: the vision tower's GGUF is loaded on the GPU; estimated without it unless --images N is given",
    );
  const reuse = a.int('cache-reuse', 0);
  prefixCacheFlag(
    reuse === undefined ? undefined : reuse > 0,
    planFlags,
    flags,
    warnings,
    '--cache-reuse',
  );
  return servedReading(a, NO_EFFECT, { flags, gpus, ref, warnings });
}

/**
 * llama.cpp's chat programs, read as a one-slot llama-server: llama-cli (tools/main) and llama-mtmd-cli (tools/mtmd)
 * parse the same common_params as llama-server (common/arg.cpp common_params_parser_init: -m/-hf, -c, -ngl, -ot,
 * --cpu-moe, -fa, --cache-type-k/v, --mmproj are registered for each), load the model the same way and run one
 * conversation in one context of -c tokens (-np is llama-server's); the run-locally guides print these lines
 * (docs.unsloth.ai, e.g. basics/tutorial-how-to-run-and-fine-tune-llama-4).
 */
const LLAMA_CLIS: readonly string[] = ['llama-cli', 'llama-mtmd-cli'];

/** `--from` of llama.cpp server command lines. */
export const LLAMA_CPP_SERVE: ServeReader = {
  name: 'llama.cpp llama-server / llama-cli / llama-bench command line',
  start: (words, i) => {
    const base = programName(words[i]!);
    if (base === 'llama-server' || LLAMA_CLIS.includes(base)) return i + 1;
    if (base === 'llama-bench') return i;
    // llama.cpp's server images (ghcr.io/ggml-org/llama.cpp:server, :server-cuda) run llama-server.
    if (i > 0 && /^llama\.cpp:server/.test(base)) return i + 1;
    return null;
  },
  read: readLlamaServerCommand,
  flagNames: Object.values(LLAMA_SERVER_FROM_FLAGS).flatMap((s) => s.names),
  configFile: false,
};
