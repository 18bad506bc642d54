/** The dispatch table: one handler per model_type, each with the transformers class it is read as. */
import type { Arch } from '../arch.js';
import { type ArchBody, fusedModules } from './blocks.js';
import { bloom, falcon, gpt2, gptNeox, gptj, opt, phi } from './classic.js';
import { deepseek } from './deepseek.js';
import { deepseekV32, glmMoeDsa } from './dsa.js';
import { bert, mllama, t5 } from './encoders.js';
import {
  afmoeMoe,
  COHERE2_PATTERN,
  GLM_MTP,
  OLMO3_PATTERN,
  ernieMoe,
  exaoneSliding,
  glm4MoeFlavor,
  glmFlavor,
  graniteMoeBlock,
  hunyuanMoe,
  minimaxM2Moe,
  olmoeMoe,
  qkNormFull,
} from './families.js';
import { ConfigError, Fields, isObject } from './fields.js';
import { granite, nemotronH, qwenHybrid, withMtp } from './hybrid.js';
import {
  GEMMA2_PATTERN,
  GEMMA3_PATTERN,
  attentionBias,
  everyLayerIfSet,
  gptOssMoe,
  llamaLike,
  mixtralMoe,
  patternSliding,
  qkNorm,
  qwenMoe,
  qwenSliding,
  stablelmExtra,
  useBias,
} from './llama.js';
import {
  llama4Text,
  llama4Vision,
  multimodal,
  pixtralVision,
  qwenVision,
  siglipVision,
} from './multimodal.js';
import {
  bambaMixers,
  falconH1,
  jambaMixers,
  jambaMoe,
  lfm2Conv,
  lfm2Ffn,
  lfm2Moe,
  lfm2Tie,
} from './recurrent.js';
import { gemma3n, gemma3nText, gemma4, gemma4Text } from './gemma4.js';
import { bailingMoe2 } from './bailing.js';
import { kimiLinear } from './kimi.js';
import { longcatFlash } from './longcat.js';
import { mimoV2Flash } from './mimo.js';
import { qwen3OmniThinker } from './omni.js';
import { minimaxFlavor } from './minimax.js';
import { mamba1Mixer, mamba2OnlyMixer, ssmStack } from './ssm.js';
import { step3Text, step3Vl } from './step3.js';
import { dbrx, gptNeo, mpt } from './mosaic.js';
import { apertusFlavor, arceeFlavor, jais2Flavor, nemotronFlavor } from './ungated.js';
import {
  glm4vText,
  glm4vVision,
  llava,
  qwen2Vision,
  withGateUpProj,
  withoutHeadDim,
} from './vl.js';

// ---------------------------------------------------------------------------------------------
// Dispatch table

export interface Handler {
  architecture: string;
  kind?: Arch['kind'];
  build: (c: Fields, architecture: string) => ArchBody;
}

const GEMMA_HEAD_DIM = 256; // HF GemmaConfig default head_dim=256

/** ERNIE 4.5 (HF Ernie4_5): every linear and lm_head with bias use_bias (default False); tie_word_embeddings default True. */
const ERNIE = {
  tiedDefault: true,
  qkvBias: useBias(false),
  mlpBias: useBias(false),
  lmHeadBias: useBias(false),
};

// HF GptOssConfig default attention_bias=True; each layer has per-head attention sinks (its extra parameters).
const GPT_OSS_BODY = llamaLike({
  tiedDefault: false,
  qkvBias: attentionBias(true),
  moe: gptOssMoe,
  extraPerLayer: (_c, d) => d.heads,
  slidingLayer: patternSliding(GEMMA2_PATTERN),
});

export const HANDLERS: Record<string, Handler> = {
  // HF LlamaConfig default tie_word_embeddings=False, attention_bias=False, mlp_bias=False.
  llama: { architecture: 'LlamaForCausalLM', build: llamaLike({ tiedDefault: false }) },
  mistral: {
    architecture: 'MistralForCausalLM',
    build: llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet }),
  },
  mixtral: {
    architecture: 'MixtralForCausalLM',
    build: llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet, moe: mixtralMoe }),
  },
  // HF Qwen2Attention: q/k/v_proj bias=True, o_proj bias=False.
  qwen2: {
    architecture: 'Qwen2ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: () => true,
      oBias: () => false,
      slidingLayer: qwenSliding,
    }),
  },
  qwen2_moe: {
    architecture: 'Qwen2MoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: (c) => c.bool('qkv_bias', true),
      oBias: () => false,
      slidingLayer: qwenSliding,
      moe: qwenMoe(true),
    }),
  },
  qwen3: {
    architecture: 'Qwen3ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm, slidingLayer: qwenSliding }),
  },
  qwen3_moe: {
    architecture: 'Qwen3MoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNorm,
      slidingLayer: qwenSliding,
      moe: qwenMoe(false),
    }),
  },
  // HF GemmaConfig/Gemma2Config/Gemma3TextConfig default tie_word_embeddings=True.
  gemma: {
    architecture: 'GemmaForCausalLM',
    build: llamaLike({ tiedDefault: true, headDimDefault: GEMMA_HEAD_DIM }),
  },
  // Gemma-2: pre/post attention and pre/post feed-forward norms (4 per layer).
  gemma2: {
    architecture: 'Gemma2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      normsPerLayer: 4,
      headDimDefault: GEMMA_HEAD_DIM,
      slidingLayer: patternSliding(GEMMA2_PATTERN),
    }),
  },
  gemma3_text: {
    architecture: 'Gemma3ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      normsPerLayer: 4,
      headDimDefault: GEMMA_HEAD_DIM,
      extraPerLayer: qkNorm,
      slidingLayer: patternSliding(GEMMA3_PATTERN),
    }),
  },
  // Phi3Attention.qkv_proj and Phi3MLP.gate_up_proj (modeling_phi3.py, transformers 5.14.1) are fused nn.Linears,
  // split by role here and kept as one module each. HF Phi3Config default tie=False.
  phi3: {
    architecture: 'Phi3ForCausalLM',
    build: (c) =>
      fusedModules(llamaLike({ tiedDefault: false, slidingLayer: everyLayerIfSet })(c), {
        qkv: 'qkv_proj',
        gateUp: 'gate_up_proj',
      }),
  },
  // HF StableLmConfig: LayerNorm with bias, use_qkv_bias=False, use_parallel_residual=False, tie=False.
  stablelm: {
    architecture: 'StableLmForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      norm: 'layer',
      qkvBias: (c) => c.bool('use_qkv_bias', false),
      oBias: () => false,
      extraPerLayer: stablelmExtra,
      parallel: (c) => c.bool('use_parallel_residual', false),
    }),
  },
  gpt_oss: {
    architecture: 'GptOssForCausalLM',
    build: (c) => ({ ...GPT_OSS_BODY(c), attentionSinks: true }),
  },
  deepseek_v2: { architecture: 'DeepseekV2ForCausalLM', build: deepseek(false) },
  // The MTP layer (model.layers.61) as GLM's: DeepSeek-R1's Hub total 684,489,845,504 as ParamCounts.checkpoint.
  deepseek_v3: {
    architecture: 'DeepseekV3ForCausalLM',
    build: (c) => withMtp(c, deepseek(true)(c), GLM_MTP),
  },
  phi: { architecture: 'PhiForCausalLM', build: phi },
  gptj: { architecture: 'GPTJForCausalLM', build: gptj },
  gpt_neox: { architecture: 'GPTNeoXForCausalLM', build: gptNeox },
  falcon: { architecture: 'FalconForCausalLM', build: falcon(false) },
  RefinedWebModel: { architecture: 'RWForCausalLM', build: falcon(false) },
  RefinedWeb: { architecture: 'RWForCausalLM', build: falcon(true) },
  bloom: { architecture: 'BloomForCausalLM', build: bloom },
  opt: { architecture: 'OPTForCausalLM', build: opt },
  gpt2: { architecture: 'GPT2LMHeadModel', build: gpt2(false) },
  gpt_bigcode: { architecture: 'GPTBigCodeForCausalLM', build: gpt2(true) },
  bert: { architecture: 'BertForMaskedLM', build: bert },
  // HF T5Config default tie_word_embeddings=True; MT5Config default False.
  t5: { architecture: 'T5ForConditionalGeneration', build: t5(true) },
  mt5: { architecture: 'MT5ForConditionalGeneration', build: t5(false) },
  mllama: { architecture: 'MllamaForConditionalGeneration', build: mllama },
  // The released checkpoints ship one MTP layer (mtp.*) their config.json does not count; vLLM builds
  // `getattr(config, "num_nextn_predict_layers", 1)` of them (vllm-project/vllm@055e47c2
  // vllm/model_executor/models/qwen3_next_mtp.py), so an absent count is one.
  qwen3_next: {
    architecture: 'Qwen3NextForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(true))(c), { absent: 1 }),
  },
  qwen3_5_text: {
    architecture: 'Qwen3_5ForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(false))(c)),
  },
  qwen3_5_moe_text: {
    architecture: 'Qwen3_5MoeForCausalLM',
    build: (c) => withMtp(c, llamaLike(qwenHybrid(true))(c)),
  },
  qwen3_5: {
    architecture: 'Qwen3_5ForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(qwenHybrid(false))(t)), qwenVision),
  },
  qwen3_5_moe: {
    architecture: 'Qwen3_5MoeForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(qwenHybrid(true))(t)), qwenVision),
  },
  qwen3_vl: {
    architecture: 'Qwen3VLForConditionalGeneration',
    build: multimodal((t) => textBuild('qwen3', t), qwenVision),
  },
  qwen3_vl_moe: {
    architecture: 'Qwen3VLMoeForConditionalGeneration',
    build: multimodal((t) => textBuild('qwen3_moe', t), qwenVision),
  },
  // Qwen2.5-VL configs keep the language fields at the top level (text_config only in newer exports).
  qwen2_5_vl: {
    architecture: 'Qwen2_5_VLForConditionalGeneration',
    build: (c) =>
      multimodal(
        (t) => textBuild('qwen2', t),
        qwenVision,
      )(isObject(c.raw.text_config) ? c : new Fields({ ...c.raw, text_config: c.raw }, c.path)),
  },
  gemma3: {
    architecture: 'Gemma3ForConditionalGeneration',
    // HF Gemma3TextConfig defaults the published wrappers leave out: vocab_size=262208,
    // max_position_embeddings=131072, num_attention_heads=8, num_key_value_heads=4 (gemma-3-4b-it names none
    // of the head counts; transformers configuration_gemma3.py @008f5c8c).
    build: multimodal(
      (t) =>
        textBuild(
          'gemma3_text',
          new Fields(
            {
              vocab_size: 262208,
              max_position_embeddings: 131072,
              num_attention_heads: 8,
              num_key_value_heads: 4,
              ...t.raw,
            },
            t.path,
          ),
        ),
      siglipVision,
    ),
  },
  gemma4_text: { architecture: 'Gemma4ForCausalLM', build: gemma4Text },
  gemma3n_text: { architecture: 'Gemma3nForCausalLM', build: gemma3nText },
  gemma3n: { architecture: 'Gemma3nForConditionalGeneration', build: gemma3n },
  gemma4: { architecture: 'Gemma4ForConditionalGeneration', build: gemma4 },
  llama4_text: { architecture: 'Llama4ForCausalLM', build: llama4Text },
  llama4: {
    architecture: 'Llama4ForConditionalGeneration',
    build: multimodal(llama4Text, llama4Vision),
  },
  mistral3: {
    architecture: 'Mistral3ForConditionalGeneration',
    build: multimodal((t) => textBuild('mistral', t), pixtralVision),
  },
  nemotron_h: { architecture: 'NemotronHForCausalLM', build: nemotronH },
  granitemoehybrid: { architecture: 'GraniteMoeHybridForCausalLM', build: llamaLike(granite) },
  // GlmMLP / Glm4MLP.gate_up_proj (modeling_glm.py / modeling_glm4.py, transformers 5.14.1): one fused nn.Linear.
  glm: {
    architecture: 'GlmForCausalLM',
    build: (c) => fusedModules(llamaLike(glmFlavor(2))(c), { gateUp: 'gate_up_proj' }),
  },
  glm4: {
    architecture: 'Glm4ForCausalLM',
    build: (c) => fusedModules(llamaLike(glmFlavor(4))(c), { gateUp: 'gate_up_proj' }),
  },
  glm4_moe: {
    architecture: 'Glm4MoeForCausalLM',
    build: (c) => withMtp(c, llamaLike(glm4MoeFlavor)(c), GLM_MTP),
  },
  // Kimi K2: DeepSeek-V3's architecture under its own model_type (its config.json names DeepseekV3ForCausalLM and
  // maps the classes to remote code; num_nextn_predict_layers 0: no MTP layer).
  kimi_k2: {
    architecture: 'DeepseekV3ForCausalLM',
    build: (c) => withMtp(c, deepseek(true)(c), GLM_MTP),
  },
  deepseek_v32: { architecture: 'DeepseekV32ForCausalLM', build: deepseekV32 },
  glm_moe_dsa: { architecture: 'GlmMoeDsaForCausalLM', build: glmMoeDsa },
  apertus: { architecture: 'ApertusForCausalLM', build: llamaLike(apertusFlavor) },
  arcee: { architecture: 'ArceeForCausalLM', build: llamaLike(arceeFlavor) },
  jais2: { architecture: 'Jais2ForCausalLM', build: llamaLike(jais2Flavor) },
  nemotron: { architecture: 'NemotronForCausalLM', build: llamaLike(nemotronFlavor) },
  mpt: { architecture: 'MptForCausalLM', build: mpt },
  gpt_neo: { architecture: 'GPTNeoForCausalLM', build: gptNeo },
  dbrx: { architecture: 'DbrxForCausalLM', build: dbrx },
  // Arcee Trinity (modeling_afmoe.py, 5.14.1): AfmoeAttention's gate_proj (hidden -> heads x head_dim, a per-head
  // output gate, read as q_proj's second half), q_norm/k_norm RMSNorm(head_dim), 4 RMSNorms a layer; sliding windows
  // from layer_types; AfmoeConfig tie_word_embeddings default False.
  afmoe: {
    architecture: 'AfmoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      normsPerLayer: 4,
      extraPerLayer: qkNorm,
      gatedQuery: true,
      moe: afmoeMoe,
    }),
  },
  // GLM-4.7-Flash: DeepSeek-V3 layout (MLA, sigmoid router with correction bias, shared experts) under its own name.
  glm4_moe_lite: {
    architecture: 'Glm4MoeLiteForCausalLM',
    build: (c) => withMtp(c, deepseek(true)(c), GLM_MTP),
  },
  // HF Olmo2DecoderLayer (modular_olmo2.py, main @46474e67): post_attention_layernorm + post_feedforward_layernorm;
  // Olmo2Config tie=False. OLMo-2-1124-7B's Hub total is reproduced exactly (test/core/models-families.test.ts).
  olmo2: {
    architecture: 'Olmo2ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull }),
  },
  olmo3: {
    architecture: 'Olmo3ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNormFull,
      slidingLayer: patternSliding(OLMO3_PATTERN),
    }),
  },
  // HF SmolLM3Config default tie_word_embeddings=True; no_rope_layers change no parameter or cache.
  smollm3: {
    architecture: 'SmolLM3ForCausalLM',
    build: llamaLike({ tiedDefault: true, slidingLayer: qwenSliding }),
  },
  // HF GraniteConfig: Llama layout with multipliers (no parameters), tie_word_embeddings default False.
  granite: { architecture: 'GraniteForCausalLM', build: llamaLike({ tiedDefault: false }) },
  granitemoe: {
    architecture: 'GraniteMoeForCausalLM',
    build: llamaLike({ tiedDefault: false, moe: graniteMoeBlock(false) }),
  },
  granitemoeshared: {
    architecture: 'GraniteMoeSharedForCausalLM',
    build: llamaLike({ tiedDefault: false, moe: graniteMoeBlock(true) }),
  },
  // HF Cohere (modeling_cohere.py: Command R, R+, Aya): CohereLayerNorm (weight only), one input_layernorm for
  // attention and MLP run in parallel, q_norm / k_norm CohereLayerNorm((heads, head_dim)) when use_qk_norm;
  // CohereConfig tie_word_embeddings default True.
  cohere: {
    architecture: 'CohereForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      normBias: false,
      parallel: () => true,
      extraPerLayer: (c, d) =>
        c.bool('use_qk_norm', false) ? (d.heads + d.kvHeads) * d.headDim : 0,
    }),
  },
  // HF Cohere2 (modular_cohere2.py, main @64c2ae8f): CohereLayerNorm (weight only), one input_layernorm for attention and MLP
  // run in parallel, tie_word_embeddings default True.
  cohere2: {
    architecture: 'Cohere2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      normBias: false,
      parallel: () => true,
      slidingLayer: patternSliding(COHERE2_PATTERN),
    }),
  },
  // HF Starcoder2 (modular_starcoder2.py, main @ae005ce1; starcoder2-7b's Hub total reproduced): LayerNorm with bias, q/k/v/o and c_fc/c_proj with bias use_bias
  // (default True), 2-matrix GELU MLP, sliding_window on every layer; tie_word_embeddings default True.
  starcoder2: {
    architecture: 'Starcoder2ForCausalLM',
    build: llamaLike({
      tiedDefault: true,
      norm: 'layer',
      ungated: true,
      qkvBias: useBias(true),
      mlpBias: useBias(true),
      slidingLayer: everyLayerIfSet,
    }),
  },
  // HF Exaone4 (modular_exaone4.py @008e5743): per-head q/k RMSNorms, post-attention and post-feedforward norms.
  exaone4: {
    architecture: 'Exaone4ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm, slidingLayer: exaoneSliding }),
  },
  // HF SeedOssAttention (modular_seed_oss.py @052b1dcd): q/k/v bias attention_bias, o_proj bias attention_out_bias,
  // MLP bias mlp_bias; head_dim from the config (80 x 128 heads over 5120 in Seed-OSS-36B).
  seed_oss: {
    architecture: 'SeedOssForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      qkvBias: attentionBias(true),
      oBias: (c) => c.bool('attention_out_bias', false),
    }),
  },
  // HF Ernie4_5: every linear and lm_head with bias use_bias (default False); tie_word_embeddings default True.
  ernie4_5: { architecture: 'Ernie4_5ForCausalLM', build: llamaLike(ERNIE) },
  // num_nextn_predict_layers MTP layers, each a dense decoder layer (the first group) with its fc and norms
  // (vllm-project/vllm@028aedf6 vllm/model_executor/models/ernie_mtp.py: LlamaDecoderLayer, mtp_linear_proj).
  ernie4_5_moe: {
    architecture: 'Ernie4_5_MoeForCausalLM',
    build: (c) => withMtp(c, llamaLike({ ...ERNIE, moe: ernieMoe })(c)),
  },
  // HF HunYuanDenseV1 / HunYuanMoEV1Attention (modular_hunyuan_v1_moe.py @05bf8f64): query_layernorm and
  // key_layernorm (RMSNorm(head_dim)) on every layer, q/k/v/o bias attention_bias; HunYuanDenseV1Config
  // tie_word_embeddings default False.
  hunyuan_v1_dense: {
    architecture: 'HunYuanDenseV1ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNorm }),
  },
  hunyuan_v1_moe: {
    architecture: 'HunYuanMoEV1ForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      extraPerLayer: qkNorm,
      moe: hunyuanMoe,
    }),
  },
  olmoe: {
    architecture: 'OlmoeForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull, moe: olmoeMoe }),
  },
  // HF PhimoeConfig: LayerNorm with bias, attention_bias default False, lm_head_bias default False, tie False.
  phimoe: {
    architecture: 'PhimoeForCausalLM',
    build: llamaLike({
      tiedDefault: false,
      norm: 'layer',
      moe: mixtralMoe,
      lmHeadBias: (c) => c.bool('lm_head_bias', false),
      slidingLayer: everyLayerIfSet,
    }),
  },
  // HF MiniMaxM2Config (modular_minimax_m2.py @ea9df1d3): tie_word_embeddings default False; q/k norms over all heads.
  minimax_m2: {
    architecture: 'MiniMaxM2ForCausalLM',
    build: llamaLike({ tiedDefault: false, extraPerLayer: qkNormFull, moe: minimaxM2Moe }),
  },
  // HF Lfm2Config: tie_embedding (tie_word_embeddings) default True; q/k RMSNorm(head_dim) on attention layers.
  lfm2: {
    architecture: 'Lfm2ForCausalLM',
    build: (c) =>
      llamaLike({ tiedDefault: true, extraPerLayer: qkNorm, mixer: lfm2Conv, denseFfn: lfm2Ffn })(
        lfm2Tie(c),
      ),
  },
  lfm2_moe: {
    architecture: 'Lfm2MoeForCausalLM',
    build: (c) =>
      llamaLike({ tiedDefault: true, extraPerLayer: qkNorm, mixer: lfm2Conv, moe: lfm2Moe })(
        lfm2Tie(c),
      ),
  },
  // HF JambaConfig default tie_word_embeddings=False; input_layernorm + pre_ff_layernorm per layer.
  jamba: {
    architecture: 'JambaForCausalLM',
    build: llamaLike({ tiedDefault: false, mixer: jambaMixers, moe: jambaMoe }),
  },
  falcon_h1: { architecture: 'FalconH1ForCausalLM', build: falconH1 },
  // Attention-free stacks (ssm.ts): HF MambaConfig / FalconMambaConfig tie the embeddings by default, Mamba2Config not.
  mamba: { architecture: 'MambaForCausalLM', build: ssmStack(mamba1Mixer, true) },
  falcon_mamba: { architecture: 'FalconMambaForCausalLM', build: ssmStack(mamba1Mixer, true) },
  mamba2: { architecture: 'Mamba2ForCausalLM', build: ssmStack(mamba2OnlyMixer, false) },
  // Lightning attention hybrids (minimax.ts): HF MiniMaxConfig, and the checkpoints' own model_types
  // (MiniMaxAI/MiniMax-Text-01 and MiniMax-M1 config.json), whose auto_map loads their remote code.
  minimax: { architecture: 'MiniMaxForCausalLM', build: llamaLike(minimaxFlavor) },
  minimax_text_01: { architecture: 'MiniMaxText01ForCausalLM', build: llamaLike(minimaxFlavor) },
  minimax_m1: { architecture: 'MiniMaxM1ForCausalLM', build: llamaLike(minimaxFlavor) },
  mimo_v2_flash: { architecture: 'MiMoV2FlashForCausalLM', build: mimoV2Flash },
  longcat_flash: { architecture: 'LongcatFlashForCausalLM', build: longcatFlash },
  // Remote code (moonshotai/Kimi-Linear-48B-A3B-Instruct config.json auto_map), read as vLLM kimi_linear.py builds it.
  kimi_linear: { architecture: 'KimiLinearForCausalLM', build: kimiLinear },
  // Ling / Ring: remote code (inclusionAI/Ling-mini-2.0 config.json auto_map); v1 and 2.0 share the model_type, and
  // `architectures` (BailingMoeForCausalLM / BailingMoeV2ForCausalLM) picks the class defaults (bailing.ts).
  bailing_moe: { architecture: 'BailingMoeV2ForCausalLM', build: bailingMoe2 },
  // Step3 (step3.ts): the text model vLLM registers as Step3TextForCausalLM, and the stepfun-ai/step3 wrapper.
  step3_text: { architecture: 'Step3TextForCausalLM', build: step3Text },
  step3_vl: {
    architecture: 'Step3VLForConditionalGeneration',
    build: (c) => step3Vl(textBuild)(c),
  },
  // vLLM serves the thinker (omni.ts); its text model is Qwen3-MoE (HF Qwen3OmniMoeThinkerTextConfig).
  qwen3_omni_moe: {
    architecture: 'Qwen3OmniMoeForConditionalGeneration',
    build: qwen3OmniThinker((t) => textBuild('qwen3_moe', t)),
  },
  // HF BambaConfig default tie_word_embeddings=False; input_layernorm + pre_ff_layernorm, SwiGLU MLP every layer.
  bamba: {
    architecture: 'BambaForCausalLM',
    build: llamaLike({ tiedDefault: false, mixer: bambaMixers }),
  },
  // Qwen2-VL configs keep the language fields at the top level, like Qwen2.5-VL.
  qwen2_vl: {
    architecture: 'Qwen2VLForConditionalGeneration',
    build: (c) =>
      multimodal(
        (t) => textBuild('qwen2', t),
        qwen2Vision,
      )(isObject(c.raw.text_config) ? c : new Fields({ ...c.raw, text_config: c.raw }, c.path)),
  },
  llava: { architecture: 'LlavaForConditionalGeneration', build: llava(false, textBuild) },
  llava_next: { architecture: 'LlavaNextForConditionalGeneration', build: llava(true, textBuild) },
  glm4v: {
    architecture: 'Glm4vForConditionalGeneration',
    build: multimodal((t) => withGateUpProj(llamaLike(glm4vText)(withoutHeadDim(t))), glm4vVision),
  },
  // GLM-4.5V: the GLM-4.5-Air language model (glm4v_moe_text: Glm4Moe layers) under the GLM-4.1V tower.
  glm4v_moe: {
    architecture: 'Glm4vMoeForConditionalGeneration',
    build: multimodal((t) => withMtp(t, llamaLike(glm4MoeFlavor)(t), GLM_MTP), glm4vVision),
  },
};

/** The text handler of a wrapper's language model. */
export function textBuild(modelType: string, t: Fields): ArchBody {
  const h = HANDLERS[modelType];
  if (!h) throw new ConfigError('model_type', modelType, 'a known text model_type');
  return h.build(t, h.architecture);
}

/** model_type values `archFromHfConfig` understands. */
export const SUPPORTED_MODEL_TYPES: readonly string[] = Object.keys(HANDLERS);

/** Each model_type with the transformers class it is read as (docs/architectures.md's list is made from it). */
export const SUPPORTED_ARCHITECTURES: readonly { modelType: string; architecture: string }[] =
  Object.entries(HANDLERS).map(([modelType, h]) => ({ modelType, architecture: h.architecture }));
