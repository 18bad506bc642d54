/**
 * Hugging Face config.json → normalized `Arch`. Pure: data in, data out.
 * One handler per model_type (hf/handlers.ts, the families in hf/); defaults cite the transformers
 * configuration class they come from. This file reads the dtype and checkpoint quantization, and the
 * closest known layout for a model_type without a reader.
 */
import type { Arch, CheckpointQuant, SourceDtype } from './arch.js';
import { paramCounts } from './params.js';
import { ConfigError, DTYPES, Fields, MAX_PARAMS, isObject } from './hf/fields.js';
import type { Json } from './hf/fields.js';
import { HANDLERS, SUPPORTED_MODEL_TYPES } from './hf/handlers.js';
import type { Handler } from './hf/handlers.js';
import { gatedDeltaNet, withMtp } from './hf/hybrid.js';
import { llamaLike } from './hf/llama.js';
import type { LlamaFlavor, Moe } from './hf/llama.js';
import { TEXT_FIELDS, textOf } from './hf/multimodal.js';

export { ConfigError } from './hf/fields.js';
export { SUPPORTED_ARCHITECTURES, SUPPORTED_MODEL_TYPES } from './hf/handlers.js';

// ---------------------------------------------------------------------------------------------
// dtype and checkpoint quantization

function dtypeOf(c: Fields, nested: Fields | null): SourceDtype {
  const raw = c.has(['torch_dtype', 'dtype']) ? c : nested;
  // HF PretrainedConfig without torch_dtype: from_pretrained loads float32.
  if (!raw || !raw.has(['torch_dtype', 'dtype'])) return 'float32';
  const name = raw.str(['torch_dtype', 'dtype']);
  const dtype = DTYPES[name.replace(/^torch\./, '')];
  // FP8 checkpoints keep their non-quantized tensors in bf16.
  if (dtype === undefined && name.includes('float8')) return 'bfloat16';
  if (dtype === undefined)
    throw new ConfigError(`${raw.path}torch_dtype`, name, Object.keys(DTYPES).join(', '));
  return dtype;
}

// bitsandbytes quantize_4bit default blocksize=64; MX formats share one scale per 32 elements (OCP MX spec v1.0).
const BNB_4BIT_BLOCK = 64;
const MX_BLOCK = 32;
const EIGHT_BITS = 8;
const FOUR_BITS = 4;

function quantOf(c: Fields): CheckpointQuant | null {
  if (!isObject(c.raw.quantization_config)) return null;
  const q = c.sub('quantization_config');
  const method = q.str(
    'quant_method',
    q.bool('load_in_4bit', false) || q.bool('load_in_8bit', false) ? 'bitsandbytes' : 'other',
  );
  const skipped =
    q.strList('modules_to_not_convert') ??
    q.strList('llm_int8_skip_modules') ??
    q.strList('ignore') ??
    [];
  // GPTQ/AWQ group_size -1 means one scale per output channel (no groups).
  const groupOf = (keys: string[]): number | null => {
    const size = keys.map((k) => q.raw[k]).find((v) => typeof v === 'number');
    return typeof size === 'number' && size > 0 ? size : null;
  };
  switch (method) {
    case 'bitsandbytes':
      return q.bool('load_in_4bit', false)
        ? { method: 'bitsandbytes-4bit', bits: FOUR_BITS, groupSize: BNB_4BIT_BLOCK, skipped }
        : { method: 'bitsandbytes-8bit', bits: EIGHT_BITS, groupSize: null, skipped };
    case 'gptq':
      return { method: 'gptq', bits: q.int('bits'), groupSize: groupOf(['group_size']), skipped };
    case 'awq':
      return {
        method: 'awq',
        bits: q.int(['bits', 'w_bit']),
        groupSize: groupOf(['group_size', 'q_group_size']),
        skipped,
      };
    case 'fp8': {
      const block = Array.isArray(q.raw.weight_block_size)
        ? (q.raw.weight_block_size as number[])
        : null;
      return {
        method: 'fp8',
        bits: EIGHT_BITS,
        groupSize: block ? block.reduce((a, b) => a * b, 1) : null,
        ...(block?.length === 2 ? { block: [block[0]!, block[1]!] as const } : {}),
        skipped,
      };
    }
    case 'mxfp4':
      return { method: 'mxfp4', bits: FOUR_BITS, groupSize: MX_BLOCK, skipped };
    case 'compressed-tensors':
      return compressedTensors(q, skipped);
    default:
      return {
        method: 'other',
        // Unknown methods without a bit width: assume 8-bit (the most common weight-only format).
        bits: q.int(['bits', 'w_bit', 'nbits'], EIGHT_BITS),
        groupSize: groupOf(['group_size']),
        skipped,
      };
  }
}

/** llm-compressor format: config_groups.<g>.weights {num_bits, type: float|int, strategy, group_size}. */
function compressedTensors(q: Fields, skipped: string[]): CheckpointQuant {
  const groups = isObject(q.raw.config_groups) ? Object.values(q.raw.config_groups) : [];
  const first = groups.find(isObject);
  const w =
    first && isObject(first.weights)
      ? new Fields(first.weights, `${q.path}config_groups.weights.`)
      : null;
  if (!w) return { method: 'other', bits: EIGHT_BITS, groupSize: null, skipped };
  const bits = w.int('num_bits');
  const float = w.str('type', 'int') === 'float';
  const groupSize = w.has('group_size') ? w.int('group_size') : null;
  // int4 weight-only (llm-compressor W4A16) is GPTQ-style: packed int4 with group scales.
  return {
    method: float && bits === EIGHT_BITS ? 'fp8' : bits === FOUR_BITS ? 'gptq' : 'other',
    bits,
    groupSize,
    skipped,
  };
}

/**
 * The context a config declares through rope_scaling (transformers modeling_rope_utils: linear, dynamic,
 * yarn, longrope, llama3 scale the positions by `factor` from original_max_position_embeddings, or from
 * max_position_embeddings when no original is given); never less than max_position_embeddings.
 */
export function ropeScaledPositions(config: Json, maxPositions: number): number {
  const r = config.rope_scaling;
  if (!isObject(r)) return maxPositions;
  const kind = r.rope_type ?? r.type;
  const factor = r.factor;
  if (typeof factor !== 'number' || !(factor > 1)) return maxPositions;
  if (!['linear', 'dynamic', 'yarn', 'longrope', 'llama3'].includes(String(kind)))
    return maxPositions;
  const original =
    typeof r.original_max_position_embeddings === 'number'
      ? r.original_max_position_embeddings
      : maxPositions;
  return Math.max(maxPositions, Math.floor(original * factor));
}

// ---------------------------------------------------------------------------------------------

// ---------------------------------------------------------------------------------------------
// Unknown model_type: the closest known layout, every assumption named

/** The standard fields a config needs to be read as a decoder (experts are read when present). */
const STANDARD_FIELDS = TEXT_FIELDS;
const EXPERT_KEYS = ['num_experts', 'num_local_experts', 'n_routed_experts'] as const;

/**
 * A handler for a model_type vramplan has no reader for: a config with the standard fields (top level or
 * text_config) is read as a llama-like decoder, its experts and Gated DeltaNet layers where it names them;
 * anything else is refused with the list of missing fields.
 */
function closestLayout(c: Fields, modelType: unknown): Handler {
  const nested = isObject(c.raw.text_config) ? textOf(c) : null;
  const textType = nested?.raw.model_type;
  if (
    typeof modelType === 'string' &&
    typeof textType === 'string' &&
    Object.hasOwn(HANDLERS, textType)
  )
    return knownText(modelType, textType, HANDLERS[textType]!);
  const t = nested ?? c;
  const missing = STANDARD_FIELDS.filter((k) => !t.has(k));
  if (typeof modelType !== 'string' || missing.length > 0)
    throw new ConfigError(
      'model_type',
      modelType,
      `one of ${SUPPORTED_MODEL_TYPES.join(', ')}; or any model_type with the standard fields (missing: ${missing.join(', ') || 'model_type'})`,
    );
  const experts = EXPERT_KEYS.find((k) => t.count(k, 0) > 0);
  const hybrid = (t.strList('layer_types') ?? []).includes('linear_attention');
  const flavor: LlamaFlavor = {
    tiedDefault: false,
    ...(experts ? { moe: genericMoe(experts) } : {}),
    ...(hybrid ? { mixer: gatedDeltaNet, gatedQuery: t.has('linear_num_value_heads') } : {}),
  };
  const assumptions = [
    `model_type '${modelType}' is not one vramplan reads: estimated as a llama-like decoder (closest known layout)`,
    `${t.path}layers: ${t.bool('attention_bias', false) ? 'q/k/v/o with bias (attention_bias)' : 'q/k/v/o without bias'}, gated SiLU MLP of intermediate_size, 2 RMSNorms per layer, no q/k norm`,
    `${t.path}tie_word_embeddings: ${t.bool('tie_word_embeddings', false) ? 'tied' : 'untied (default assumed False)'}`,
    ...(experts
      ? [
          `experts: ${t.count(experts, 0)} (${experts}), top-k num_experts_per_tok, width moe_intermediate_size (else intermediate_size), shared experts of shared_expert_intermediate_size or n_shared_experts / num_shared_experts, every layer MoE unless mlp_only_layers / first_k_dense_replace`,
        ]
      : []),
    ...(hybrid
      ? [
          'layer_types linear_attention: read as Gated DeltaNet layers (linear_* fields, Qwen3-Next defaults)',
        ]
      : []),
    ...(nested
      ? []
      : t.has('vision_config')
        ? ['vision_config: not read (no vision tower counted)']
        : []),
    ...(t.has('sliding_window')
      ? ['sliding_window: on the layers layer_types names sliding_attention, else none']
      : []),
  ];
  return {
    architecture: 'unknown',
    build: (x) => {
      const body = withMtp(nested ?? x, llamaLike(flavor)(nested ?? x));
      return { ...body, assumptions };
    },
  };
}

/**
 * A wrapper vramplan has no reader for whose text_config names a model_type it reads (Kimi K2.5's deepseek_v3,
 * LFM2-VL's lfm2, InternVL's qwen2): the language model read by that reader, the other towers named as not read.
 */
function knownText(modelType: string, textType: string, text: Handler): Handler {
  return {
    architecture: 'unknown',
    build: (x) => {
      const t = textOf(x);
      const towers = Object.keys(x.raw).filter(
        (k) => k.endsWith('_config') && k !== 'text_config' && isObject(x.raw[k]),
      );
      const body = text.build(t, text.architecture);
      return {
        ...body,
        assumptions: [
          `model_type '${modelType}' is not one vramplan reads: its text_config read as '${textType}'`,
          ...(towers.length > 0 ? [`${towers.join(', ')}: not read (no tower counted)`] : []),
          ...(body.assumptions ?? []),
        ],
      };
    },
  };
}

/** Experts under a generic config's own keys, shared experts where it names them. */
function genericMoe(key: (typeof EXPERT_KEYS)[number]) {
  return (c: Fields, i: number): Moe | null => {
    if (c.intList('mlp_only_layers').includes(i) || i < c.count('first_k_dense_replace', 0))
      return null;
    const ffn = c.int('moe_intermediate_size', c.int('intermediate_size'));
    // Shared experts as DeepSeek names them (n_shared_experts) or as Ling 2.0 / Arcee Trinity do (num_shared_experts).
    const sharedFfn =
      c.count('shared_expert_intermediate_size', 0) ||
      ffn * c.count(['n_shared_experts', 'num_shared_experts'], 0);
    return {
      experts: c.int(key),
      topK: c.int(['num_experts_per_tok', 'experts_per_token', 'moe_topk'], 1),
      ffn,
      routerBias: false,
      expertBias: false,
      sharedFfn,
      sharedGate: false,
    };
  };
}

/** Normalize one Hugging Face config.json object. Throws ConfigError on anything it cannot read. */
export function archFromHfConfig(config: unknown, meta: { id: string; hfId: string | null }): Arch {
  if (!isObject(config)) throw new ConfigError('(root)', config, 'a JSON object');
  const c = new Fields(config);
  const modelType = config.model_type;
  const known =
    typeof modelType === 'string' && Object.hasOwn(HANDLERS, modelType)
      ? HANDLERS[modelType]
      : undefined;
  const handler = known ?? closestLayout(c, modelType);
  const names = c.strList('architectures');
  const architecture = names?.[0] ?? handler.architecture;
  const body = handler.build(c, architecture);
  const nested = isObject(config.text_config) ? c.sub('text_config') : null;
  const arch: Arch = {
    id: meta.id,
    hfId: meta.hfId,
    modelType: String(modelType),
    architecture,
    ...body,
    dtype: dtypeOf(c, nested),
    quant: quantOf(c),
    measuredParams: null,
  };
  const scaled = ropeScaledPositions(nested?.raw ?? config, body.maxPositions);
  if (scaled > body.maxPositions) arch.ropeScaledPositions = scaled;
  const total = paramCounts(arch).total;
  if (!(total <= MAX_PARAMS))
    throw new ConfigError(
      '(sizes)',
      total,
      `at most ${MAX_PARAMS} parameters in all (check the sizes in config.json)`,
    );
  return arch;
}
