/**
 * LitGPT `--config` YAML (finetune_lora / finetune_full) → contract flags. Keys: the setup() parameters of
 * litgpt/finetune/lora.py L49-79 and full.py L44-66, TrainArgs of litgpt/args.py, at litgpt v0.5.13
 * (commit 26857050fe3ff627cd714fe92f5838f51a3d5efa). Pure: the parsed document in, flags and warnings out.
 */
import type { ConfigReader } from '../def.js';
import {
  FieldReader,
  FromError,
  type FromFlags,
  type FromMapping,
  hasAny,
  isRecord,
  loraDropoutInto,
} from '../../from/common.js';
import { catalogHfIdOf } from './models.js';

const MEMORY_KEYS = [
  'checkpoint_dir',
  'precision',
  'quantize',
  'devices',
  'num_nodes',
  'lora_r',
  'lora_dropout',
  'lora_query',
  'lora_key',
  'lora_value',
  'lora_projection',
  'lora_mlp',
  'lora_head',
  'train',
  'optimizer',
] as const;

// setup() parameters that do not change per-GPU memory (lora.py L49-79, full.py L44-66).
const OTHER_KEYS = new Set([
  'out_dir',
  'lora_alpha',
  'data',
  'eval',
  'log',
  'logger_name',
  'seed',
  'access_token',
  'resume',
]);

// lora.py L53: quantize modes → weights (BitsandbytesPrecision: nf4, fp4, LLM.int8 training layers).
const QUANT: Record<string, { weights: string; dq: boolean }> = {
  'bnb.nf4': { weights: 'nf4', dq: false },
  'bnb.nf4-dq': { weights: 'nf4', dq: true },
  'bnb.fp4': { weights: 'fp4', dq: false },
  'bnb.fp4-dq': { weights: 'fp4', dq: true },
  'bnb.int8-training': { weights: 'int8', dq: false },
};

// Fabric precision strings → compute dtype (lora.py L148 and Fabric's precision names).
const COMPUTE: Record<string, string> = { bf16: 'bf16', '16': 'fp16', '32': 'fp32' };

// Optimizer class paths (instantiate_torch_optimizer, utils.py L636-668; bare names are torch.optim classes).
const OPTIM: Record<string, string> = {
  'torch.optim.AdamW': 'adamw',
  'torch.optim.Adam': 'adamw',
  'torch.optim.SGD': 'sgd',
  'bitsandbytes.optim.AdamW8bit': 'adamw-8bit',
  'bitsandbytes.optim.PagedAdamW': 'paged-adamw',
  'bitsandbytes.optim.PagedAdamW32bit': 'paged-adamw',
  'bitsandbytes.optim.PagedAdamW8bit': 'paged-adamw-8bit',
};

function optimizerOf(v: unknown, warnings: string[]): string | undefined {
  let path: string | undefined;
  let momentum = 0;
  if (typeof v === 'string') path = v.includes('.') ? v : `torch.optim.${v}`;
  else if (isRecord(v) && typeof v.class_path === 'string') {
    path = v.class_path;
    const m = isRecord(v.init_args) ? v.init_args.momentum : undefined;
    if (typeof m === 'number') momentum = m;
  } else if (v !== undefined)
    throw new FromError('optimizer', v, 'an optimizer name or {class_path, init_args}');
  if (path === undefined) return undefined;
  const o = OPTIM[path];
  if (o === 'sgd' && momentum > 0) return 'sgd-momentum';
  if (o) return o;
  warnings.push(`optimizer: '${path}' is not modelled; estimated as AdamW`);
  return 'adamw';
}

/** `checkpoint_dir: checkpoints/<org>/<name>` → the catalog model (by Hugging Face id) or the repo id as written. */
function modelOf(dir: string | undefined, warnings: string[]): string | null {
  if (dir === undefined) return null;
  const repo = dir.replace(/^\.?\/?(checkpoints\/)?/, '').replace(/\/+$/, '');
  const hfId = catalogHfIdOf(repo);
  if (!hfId)
    warnings.push(
      `checkpoint_dir: '${dir}' is not a catalog model LitGPT's registry names; give --model if it is not resolved`,
    );
  return hfId ?? repo;
}

// Long on purpose: one mapping per LitGPT setup() key, each standing alone.
export function mapLitgpt(doc: Record<string, unknown>): FromMapping {
  const r = new FieldReader(doc);
  const flags: FromFlags = { framework: 'litgpt' };
  const warnings: string[] = [];
  const model = modelOf(r.str('checkpoint_dir'), warnings);
  const quantize = r.str('quantize');
  const q = quantize === undefined ? undefined : QUANT[quantize];
  if (quantize !== undefined && !q)
    throw new FromError('quantize', quantize, Object.keys(QUANT).join(', '));
  // finetune_full takes no lora_* / quantize keys (jsonargparse rejects them): their presence means finetune_lora.
  const adapter = q !== undefined || Object.keys(doc).some((k) => k.startsWith('lora_'));
  flags.method = q && q.weights !== 'int8' ? 'qlora' : adapter ? 'lora' : 'full';
  const precision = r.str('precision');
  if (precision !== undefined) {
    const m = /^(bf16|16|32)-(true|mixed)$/.exec(precision);
    if (!m)
      throw new FromError(
        'precision',
        precision,
        'bf16-true, bf16-mixed, 16-true, 16-mixed, 32-true',
      );
    flags.compute = COMPUTE[m[1]!]!;
    // -true: parameters in the compute dtype; -mixed: fp32 parameters under autocast.
    flags.weights = m[2] === 'true' ? flags.compute : 'fp32';
  } else {
    // utils.get_default_supported_precision(training=True): bf16-mixed where the GPU has bf16.
    warnings.push('precision: not set; LitGPT picks bf16-mixed on bf16 GPUs (fp32 weights)');
    flags.compute = 'bf16';
    flags.weights = 'fp32';
  }
  if (q) {
    flags.weights = q.weights;
    if (q.dq) flags['double-quant'] = true;
  }
  // devices: int | str (lora.py L54); "auto" / -1 (every visible GPU) is not a count.
  const devices = r.raw('devices');
  const counted = devices === undefined || /^\s*[1-9]\d*\s*$/.test(String(devices));
  const perNode = counted ? (r.int('devices') ?? 1) : undefined;
  if (!counted)
    warnings.push(`devices: '${String(devices)}' is not a count; the estimate uses --gpus`);
  const nodes = r.int('num_nodes') ?? 1;
  const gpus = (perNode ?? 1) * nodes;
  if (counted) flags.gpus = gpus;
  if (nodes > 1) flags['gpus-per-node'] = perNode ?? 1;
  if (adapter) {
    const rank = r.int('lora_r');
    flags['lora-rank'] = rank ?? 8; // lora.py L56: lora_r = 8
    // lora.py setup: lora_dropout = 0.05, what the litgpt profile counts, stays unset; any other value is read.
    loraDropoutInto(flags, r.fraction('lora_dropout'), 0.05);
    // lora.py L59-64 defaults: query and value on, key, projection, mlp and head off.
    const on = (k: string, d: boolean) => r.bool(k) ?? d;
    const attn = {
      q: on('lora_query', true),
      k: on('lora_key', false),
      v: on('lora_value', true),
      o: on('lora_projection', false),
    };
    const mlp = on('lora_mlp', false);
    const head = on('lora_head', false);
    const all = attn.q && attn.k && attn.v && attn.o && mlp;
    const t: string[] = all
      ? ['all-linear']
      : [
          ...Object.entries(attn)
            .filter(([, v]) => v)
            .map(([k]) => k),
          ...(mlp ? ['gate', 'up', 'down'] : []),
        ];
    if (head) t.push('lm_head');
    if (t.length === 0) warnings.push('no lora_* target is on: LoRA adapts nothing');
    else flags['lora-targets'] = t.join(',');
    // finetune/lora.py L355: the lm_head runs in 128-token chunks, the loss chunk by chunk.
    flags['chunked-loss'] = true;
  }
  const train = r.record('train');
  const tr = new FieldReader(train ?? {}, 'train.');
  // lora.py L66-75 / full.py L52-59 defaults: global_batch_size 16, micro_batch_size 1.
  const micro = tr.int('micro_batch_size') ?? 1;
  const global = tr.int('global_batch_size') ?? 16;
  flags.batch = micro;
  // args.py L56-66: accumulation = global_batch_size // (devices * num_nodes) // micro_batch_size.
  const accum = Math.floor(Math.floor(global / gpus) / micro);
  if (accum < 1)
    throw new FromError(
      'train.global_batch_size',
      global,
      `at least micro_batch_size x devices x num_nodes (${micro * gpus})`,
    );
  flags['grad-accum'] = accum;
  const seq = tr.int('max_seq_length');
  if (seq !== undefined) flags.seq = seq;
  else
    warnings.push(
      'train.max_seq_length: not set (samples keep their own length); the estimate uses --seq (default 2048)',
    );
  const opt = optimizerOf(r.raw('optimizer'), warnings);
  if (q) {
    // utils.instantiate_bnb_optimizer (L619-633): quantized runs step bitsandbytes PagedAdamW.
    if (opt !== undefined && opt !== 'paged-adamw' && opt !== 'adamw')
      warnings.push(`optimizer: with quantize LitGPT steps PagedAdamW, not ${opt}`);
    flags.optimizer = 'paged-adamw';
  } else if (opt !== undefined) flags.optimizer = opt;
  if (gpus > 1) {
    // full.py L107-114 (FSDPStrategy FULL_SHARD, Block checkpointing); lora.py L522-541 (FSDP2, checkpointed Blocks).
    flags.zero = 3;
    flags.checkpointing = 'full';
  }
  const rest = r.unused();
  return {
    format: 'litgpt',
    model,
    flags,
    warnings,
    ignored: rest.filter((k) => OTHER_KEYS.has(k)),
    unknown: rest.filter((k) => !OTHER_KEYS.has(k)),
    deepspeedRef: null,
    deepspeedInline: null,
    memoryKeys: MEMORY_KEYS,
    // jsonargparse (LitGPT's CLI) rejects keys setup() does not take.
    closedSchema: true,
    multiGpuZero: gpus > 1 ? null : 3,
  };
}

/**
 * The subcommand of a launch folder's launch.sh (`litgpt finetune_lora|finetune_full`) decides the method: a
 * finetune_full run of a config is a full fine-tune. Returns the flags to use.
 */
export function litgptWithScript(flags: FromFlags, script: string): FromFlags {
  const cmd = /\blitgpt (finetune_lora|finetune_full|finetune)\b/.exec(script)?.[1];
  if (cmd !== 'finetune_full' || flags.method === 'full') return flags;
  const out: FromFlags = { ...flags, method: 'full' };
  for (const k of ['lora-rank', 'lora-targets', 'chunked-loss', 'double-quant']) delete out[k];
  return out;
}

/** LitGPT setup() takes checkpoint_dir at the top and TrainArgs under train (litgpt/finetune/lora.py). */
export const LITGPT_READER: ConfigReader = {
  format: 'litgpt',
  name: 'LitGPT finetune YAML',
  order: 70,
  detect: (doc) =>
    'checkpoint_dir' in doc &&
    (isRecord(doc.train) || hasAny(doc, ['precision', 'quantize', 'lora_r'])),
  map: mapLitgpt,
};
