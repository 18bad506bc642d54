/** Which model_types this engine runs at its pinned release (engines/architectures.ts reads it through the def). */
import {
  architectureRule,
  refused,
  HF_CAUSAL,
  OMNI,
  REMOTE_CODE,
  VLM_WRAPPERS,
  type ArchitectureTable,
} from '../architectures.js';
import { SGLANG_VERSION } from './version.js';

const SGLANG_REFUSED = [
  't5',
  'mt5',
  'bert',
  'RefinedWebModel', // falcon.py's EntryClass is [FalconForCausalLM]: no RWForCausalLM
  'RefinedWeb',
  'bloom',
  'glm',
  'llava_next',
  'jais2', // no Jais2ForCausalLM, NemotronForCausalLM, MptForCausalLM or GPTNeoForCausalLM in the 0.5.23 wheel
  'nemotron',
  'mpt',
  'gpt_neo',
  'minimax', // no MiniMaxText01 / MiniMaxM1 / MiniMaxForCausalLM EntryClass (minimax_m2.py, minimax_m3.py only)
  'minimax_text_01',
  'minimax_m1',
  'step3_text', // step3_vl.py's EntryClass is Step3VLForConditionalGeneration only; no Step3TextForCausalLM
];
/**
 * SGLang 0.5.23: the model files of python/sglang/srt/models/ (bloom.py, glm.py, llava_next.py absent;
 * falcon.py, gpt_neox.py, jamba.py, starcoder2.py, smollm3.py, granitemoeshared.py, seed_oss.py present; apertus.py,
 * arcee.py, gemma3n_causal.py, gemma3n_mm.py, gemma4_causal.py, gemma4_mm.py, mamba.py, falcon_mamba.py, mamba2.py
 * present, DeepseekV32ForCausalLM in
 * deepseek_v2.py's and GlmMoeDsaForCausalLM in glm4_moe.py's EntryClass).
 */
export const SGLANG_ARCHITECTURES: ArchitectureTable = {
  engines: ['sglang'],
  name: 'SGLang 0.5.23',
  library: 'sglang',
  versions: '==0.5.23',
  // The release tag of the wheel it was read from (the 2024 commit other files cite predates these files).
  source: `https://github.com/sgl-project/sglang/tree/v${SGLANG_VERSION}/python/sglang/srt/models`,
  // REMOTE_CODE: its model registry is keyed by architecture class (DeepseekV3ForCausalLM for Kimi K2;
  // bailing_moe.py's EntryClass holds BailingMoeForCausalLM and BailingMoeV2ForCausalLM).
  // OMNI: qwen3_omni_moe.py's EntryClass Qwen3OmniMoeForConditionalGeneration.
  runs: [...HF_CAUSAL, ...VLM_WRAPPERS, ...REMOTE_CODE, ...OMNI].filter(
    (t) => !SGLANG_REFUSED.includes(t),
  ),
  refuses: refused(
    'SGLang has no native model class for it (python/sglang/srt/models/)',
    ...SGLANG_REFUSED,
  ),
};

/** The table as a `forbid` rule, made once (the planner asks per layout shape). */
export const SGLANG_ARCH_RULE = architectureRule(SGLANG_ARCHITECTURES);
