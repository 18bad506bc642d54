/**
 * Module names that PEFT's LoraConfig.target_modules matches, per Hugging Face model_type, and the
 * decoder-layer class FSDP wraps. Names from each model's modeling_<type>.py in huggingface/transformers.
 */
import type { Arch } from '../model/arch.js';
import type { EstimateOptions, LoraTarget } from '../../schema/estimate.js';

type Names = Record<LoraTarget, string>;

// Llama family: modeling_llama.py LlamaAttention q/k/v/o_proj, LlamaMLP gate/up/down_proj.
const LLAMA: Names = {
  q: 'q_proj',
  k: 'k_proj',
  v: 'v_proj',
  o: 'o_proj',
  gate: 'gate_proj',
  up: 'up_proj',
  down: 'down_proj',
  embed: 'embed_tokens',
  lm_head: 'lm_head',
};
// modeling_mixtral.py: experts are w1 (gate), w3 (up), w2 (down); `gate` is the router.
const MIXTRAL: Names = { ...LLAMA, gate: 'w1', up: 'w3', down: 'w2' };
// modeling_phi3.py: fused qkv_proj and gate_up_proj.
const PHI3: Names = {
  ...LLAMA,
  q: 'qkv_proj',
  k: 'qkv_proj',
  v: 'qkv_proj',
  gate: 'gate_up_proj',
  up: 'gate_up_proj',
};
// modeling_phi.py: q/k/v_proj, dense, fc1, fc2.
const PHI: Names = { ...LLAMA, o: 'dense', gate: 'fc1', up: 'fc1', down: 'fc2' };
// modeling_gptj.py: q/k/v_proj, out_proj, fc_in, fc_out, wte.
const GPTJ: Names = {
  ...LLAMA,
  o: 'out_proj',
  gate: 'fc_in',
  up: 'fc_in',
  down: 'fc_out',
  embed: 'wte',
};
// modeling_gpt_neox.py: fused query_key_value, dense, dense_h_to_4h, dense_4h_to_h, embed_in, embed_out.
const NEOX: Names = {
  q: 'query_key_value',
  k: 'query_key_value',
  v: 'query_key_value',
  o: 'dense',
  gate: 'dense_h_to_4h',
  up: 'dense_h_to_4h',
  down: 'dense_4h_to_h',
  embed: 'embed_in',
  lm_head: 'embed_out',
};
// modeling_falcon.py and modeling_bloom.py: same fused names as NeoX, word_embeddings, lm_head.
const FALCON: Names = { ...NEOX, embed: 'word_embeddings', lm_head: 'lm_head' };
// modeling_opt.py: q/k/v_proj, out_proj, fc1, fc2.
const OPT: Names = { ...LLAMA, o: 'out_proj', gate: 'fc1', up: 'fc1', down: 'fc2' };
// modeling_gpt2.py / modeling_gpt_bigcode.py: fused c_attn; attn.c_proj vs mlp.c_proj share a leaf name.
const GPT2: Names = {
  q: 'c_attn',
  k: 'c_attn',
  v: 'c_attn',
  o: 'attn.c_proj',
  gate: 'c_fc',
  up: 'c_fc',
  down: 'mlp.c_proj',
  embed: 'wte',
  lm_head: 'lm_head',
};
// modeling_t5.py: q, k, v, o; T5DenseActDense wi/wo, gated (mT5, T5 v1.1) wi_0/wi_1/wo.
const T5: Names = {
  q: 'q',
  k: 'k',
  v: 'v',
  o: 'o',
  gate: 'wi_0',
  up: 'wi',
  down: 'wo',
  embed: 'shared',
  lm_head: 'lm_head',
};
// modeling_bert.py: query/key/value; attention.output.dense, intermediate.dense, output.dense.
const BERT: Names = {
  q: 'query',
  k: 'key',
  v: 'value',
  o: 'attention.output.dense',
  gate: 'intermediate.dense',
  up: 'intermediate.dense',
  down: 'output.dense',
  embed: 'word_embeddings',
  lm_head: 'decoder',
};
// modeling_deepseek_v3.py: q_a/q_b_proj (or q_proj), kv_a_proj_with_mqa, kv_b_proj, o_proj.
const DEEPSEEK: Names = { ...LLAMA, k: 'kv_a_proj_with_mqa', v: 'kv_b_proj' };

const BY_TYPE: Record<string, Names> = {
  llama: LLAMA,
  mistral: LLAMA,
  qwen2: LLAMA,
  qwen2_moe: LLAMA,
  qwen3: LLAMA,
  qwen3_moe: LLAMA,
  gemma: LLAMA,
  gemma2: LLAMA,
  gemma3_text: LLAMA,
  // modeling_gemma3.py Gemma3ForConditionalGeneration: the language model's layers are Gemma3DecoderLayer's.
  gemma3: LLAMA,
  stablelm: LLAMA,
  gpt_oss: LLAMA,
  mllama: LLAMA,
  mixtral: MIXTRAL,
  phi3: PHI3,
  phi: PHI,
  gptj: GPTJ,
  gpt_neox: NEOX,
  falcon: FALCON,
  RefinedWeb: FALCON,
  RefinedWebModel: FALCON,
  bloom: FALCON,
  opt: OPT,
  gpt2: GPT2,
  gpt_bigcode: GPT2,
  t5: T5,
  mt5: T5,
  bert: BERT,
  deepseek_v2: DEEPSEEK,
  deepseek_v3: DEEPSEEK,
};

/** Decoder-layer class names (the `_no_split_modules` of each model) for FSDP TRANSFORMER_BASED_WRAP. */
const LAYER_CLASS: Record<string, string> = {
  llama: 'LlamaDecoderLayer',
  mistral: 'MistralDecoderLayer',
  mixtral: 'MixtralDecoderLayer',
  qwen2: 'Qwen2DecoderLayer',
  qwen2_moe: 'Qwen2MoeDecoderLayer',
  qwen3: 'Qwen3DecoderLayer',
  qwen3_moe: 'Qwen3MoeDecoderLayer',
  gemma: 'GemmaDecoderLayer',
  gemma2: 'Gemma2DecoderLayer',
  gemma3_text: 'Gemma3DecoderLayer',
  phi3: 'Phi3DecoderLayer',
  phi: 'PhiDecoderLayer',
  stablelm: 'StableLmDecoderLayer',
  gptj: 'GPTJBlock',
  gpt_neox: 'GPTNeoXLayer',
  falcon: 'FalconDecoderLayer',
  bloom: 'BloomBlock',
  opt: 'OPTDecoderLayer',
  gpt2: 'GPT2Block',
  gpt_bigcode: 'GPTBigCodeBlock',
  gpt_oss: 'GptOssDecoderLayer',
  deepseek_v2: 'DeepseekV2DecoderLayer',
  deepseek_v3: 'DeepseekV3DecoderLayer',
  t5: 'T5Block',
  mt5: 'MT5Block',
  bert: 'BertLayer',
};

export const decoderLayerClass = (arch: Arch): string | null => LAYER_CLASS[arch.modelType] ?? null;

const FUSED_QKV = new Set(['query_key_value', 'c_attn', 'qkv_proj']);

export interface LoraModules {
  /** PEFT target_modules: explicit names, or PEFT's 'all-linear' shorthand. */
  targetModules: string[] | 'all-linear';
  /** PEFT target_parameters: the fused 3-D routed-expert weights the plan adapts (empty for dense models). */
  targetParameters: string[];
  /** Where the module names adapt more than the plan asked for (fused projections). */
  notes: string[];
  /** Module names per contract target (for engines with their own naming, e.g. axolotl lists). */
  known: boolean;
}

// transformers 5.x model types whose routed experts are one module of 3-D parameters gate_up_proj (E, 2I, H) and
// down_proj (E, H, I) under @use_experts_implementation (integrations/moe.py @8b584a67; Qwen3MoeExperts), not
// nn.Linear: PEFT's target_modules and 'all-linear' never reach them; target_parameters does (lora.ParamWrapper,
// peft tuners/lora/layer.py @a5526d27), matching names by suffix (tuners_utils.py: key.endswith("." + target)).
const FUSED_EXPERTS = new Set([
  'mixtral',
  'qwen2_moe',
  'qwen3_moe',
  'deepseek_v2',
  'deepseek_v3',
  'gpt_oss',
]);
export const EXPERT_GATE_UP = 'experts.gate_up_proj';
export const EXPERT_DOWN = 'experts.down_proj';

const hasRoutedExperts = (arch: Arch): boolean =>
  arch.groups.some((g) => g.experts > 1 && g.linears.some((l) => l.copies > 1));

/** PEFT target_parameters for the routed experts the plan adapts (gate/up/down on an MoE model), and notes. */
export function expertTargetParameters(
  arch: Arch,
  o: EstimateOptions,
): { params: string[]; notes: string[] } {
  const gate = o.loraAllLinear || o.loraTargets.includes('gate');
  const up = o.loraAllLinear || o.loraTargets.includes('up');
  const down = o.loraAllLinear || o.loraTargets.includes('down');
  if (!hasRoutedExperts(arch) || !(gate || up || down)) return { params: [], notes: [] };
  if (!FUSED_EXPERTS.has(arch.modelType))
    return {
      params: [],
      notes: [
        `model_type '${arch.modelType}': no fused-expert parameter names known; PEFT may leave its routed experts unadapted`,
      ],
    };
  const params = [...(gate || up ? [EXPERT_GATE_UP] : []), ...(down ? [EXPERT_DOWN] : [])];
  const notes = [
    'routed experts adapted through PEFT target_parameters (lora.ParamWrapper): lora_dropout 0 (ParamWrapper refuses dropout)',
  ];
  if (gate !== up)
    notes.push(
      'experts.gate_up_proj is one fused parameter: adapting it adapts gate and up together (the plan counted one)',
    );
  return { params, notes };
}

/** PEFT modules_to_save names for the plan's --modules-to-save on this architecture (null: no name table). */
export function savedModuleNames(arch: Arch, o: EstimateOptions): string[] | null {
  if (!o.modulesToSave) return [];
  const names = BY_TYPE[arch.modelType];
  return names ? o.modulesToSave.map((m) => names[m]) : null;
}

/** The note a launch folder gets where PEFT module names are unknown for the architecture. */
const unknownNamesNote = (arch: Arch): string =>
  `no module-name table for model_type '${arch.modelType}': PEFT 'all-linear' (every linear layer), as the plan counts`;

/** Whether a module-name table names this architecture's layers (loraTargetModules' `known`). */
export const namesModules = (arch: Arch): boolean => BY_TYPE[arch.modelType] !== undefined;

/**
 * The LoRA targets a plan has on this architecture: the job's own, or, where no module-name table names
 * them (the launchers then write PEFT 'all-linear', loraTargetModules), every linear layer, so that the
 * plan counts what its files adapt. The embedding and output-layer extras are kept as they were.
 */
export function launchedLoraOptions(arch: Arch, o: EstimateOptions): EstimateOptions {
  if ((o.method !== 'lora' && o.method !== 'qlora') || o.loraAllLinear) return o;
  if (namesModules(arch)) return o;
  const extras = o.loraTargets.filter((t) => t === 'embed' || t === 'lm_head');
  return {
    ...o,
    loraAllLinear: true,
    loraTargets: ['q', 'k', 'v', 'o', 'gate', 'up', 'down', ...extras],
  };
}

/**
 * PEFT target_modules for the plan's LoRA targets on this architecture; with `fusedExperts` (launchers on
 * transformers 5.x + PEFT >= 0.17) also the target_parameters of the routed experts.
 */
export function loraTargetModules(
  arch: Arch,
  o: EstimateOptions,
  fusedExperts = false,
): LoraModules {
  const names = BY_TYPE[arch.modelType];
  const extras = o.loraTargets.filter((t) => t === 'embed' || t === 'lm_head');
  const experts = fusedExperts ? expertTargetParameters(arch, o) : { params: [], notes: [] };
  if (o.loraAllLinear && extras.length === 0)
    return {
      targetModules: 'all-linear',
      targetParameters: experts.params,
      notes: names ? experts.notes : [unknownNamesNote(arch), ...experts.notes],
      known: names !== undefined,
    };
  if (!names)
    return {
      targetModules: 'all-linear',
      targetParameters: experts.params,
      notes: [unknownNamesNote(arch), ...experts.notes],
      known: false,
    };
  const gated = arch.groups.some((g) => g.gated);
  const out: string[] = [];
  const notes: string[] = [];
  for (const t of o.loraTargets) {
    let name = names[t];
    if (arch.modelType === 'mt5' || (arch.modelType === 't5' && gated)) {
      if (t === 'up') name = 'wi_1';
    }
    if (!out.includes(name)) out.push(name);
  }
  const fused = out.filter((n) => FUSED_QKV.has(n));
  const qkv = o.loraTargets.filter((t) => t === 'q' || t === 'k' || t === 'v');
  if (fused.length > 0 && qkv.length < 3)
    notes.push(
      `${fused[0]} is one fused module: adapting it adapts q, k and v together (the plan counts its one adapter pair for ${qkv.join(',')})`,
    );
  const gateUp = o.loraTargets.filter((t) => t === 'gate' || t === 'up');
  if (
    !gated &&
    gateUp.length > 0 &&
    names.gate === names.up &&
    gateUp.length === 1 &&
    gateUp[0] === 'gate'
  )
    notes.push(`${names.gate} is the MLP input projection (this model has no separate gate)`);
  if (names.up === 'gate_up_proj' && gateUp.length === 1)
    notes.push(
      'gate_up_proj is one fused module: adapting it adapts gate and up together (the plan counts its one adapter pair)',
    );
  return {
    targetModules: out,
    targetParameters: experts.params,
    notes: [...notes, ...experts.notes],
    known: true,
  };
}
