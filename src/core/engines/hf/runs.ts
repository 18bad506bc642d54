/**
 * What the Hugging Face training engines (hf-trainer, hf-fsdp, hf-deepspeed) run, as vramplan writes it: the
 * Trainer trains only (generation is hf-generate); each set's source is a transformers file at one commit.
 */
import type { EstimateOptions } from '../../../schema/estimate.js';
import type { EngineRuns, RunsSet } from '../runs.js';
import { TRL_OBJECTIVES } from './profile.js';
import { AXOLOTL_SHARDED_QUANT_LOAD, BNB_4BIT_LOADS_WHOLE } from './memory.js';

/** The transformers release the hf engines pin, read in its PyPI wheel for line numbers. */
const TF_WHEEL = 'https://pypi.org/project/transformers/5.14.1/ (wheel) transformers';
const H =
  'https://github.com/huggingface/transformers/blob/001002320fa01a489bb9b93976a7e4cd1a46291c/src/transformers';

/**
 * Model types whose positions are rows of a learned table (an index past it raises): GPT-2 and GPT-BigCode
 * (`wpe`), OPT (OPTLearnedPositionalEmbedding), BERT (`position_embeddings`).
 */
const POSITION_TABLES = ['gpt2', 'gpt_bigcode', 'opt', 'bert'];

/**
 * transformers builds rotary embeddings from the position ids it is given (LlamaRotaryEmbedding.forward: inv_freq
 * times position_ids, no table and no cap at max_position_embeddings), so the Trainer runs a longer sequence; a
 * learned position table (POSITION_TABLES) caps it.
 */
const positionsPastConfig = (modelType: string): string | null =>
  POSITION_TABLES.includes(modelType)
    ? null
    : `transformers computes rotary positions from the position ids, with no table capping them (LlamaRotaryEmbedding.forward, ${H}/models/llama/modeling_llama.py)`;

/**
 * TRL v1.9.0 also trains PPO (trl/experimental/ppo/ppo_trainer.py: a value model beside the policy, a frozen
 * reward model, transformers generate) and reward models (trl/trainer/reward_trainer.py: a sequence-classification
 * score head over chosen/rejected pairs; trl/experimental/prm/prm_trainer.py: token classification), which vramplan
 * estimates and does not write.
 */
export const HF_TRAINING_RUNS: EngineRuns = {
  widen: { objectives: [...TRL_OBJECTIVES, 'ppo', 'reward', 'prm'] },
  positionsPastConfig,
  sources: {
    objectives:
      'https://github.com/huggingface/trl/blob/v1.9.0/trl/experimental/ppo/ppo_trainer.py',
    methods: `${H}/trainer.py`,
    weights: `${H}/quantizers/auto.py`,
    attention: `${H}/modeling_utils.py`,
    // TrainingArguments.optim takes OptimizerNames' values (no Adam-mini among them).
    optimizers: `${H}/training_args.py`,
    // The Trainer's in-backward steps are optimizers of their own (transformers 5.14.1 wheel, trainer_optimizer.py):
    // LOMO/AdaLomo update inside lomo_optim's fused backward (_get_lomo_optimizer, L400-415; trainer.py L1932-1933
    // passes the learning rate), the *_layerwise GaLore/APOLLO ones step a per-parameter optimizer from
    // register_post_accumulate_grad_hook (L164-181), raising under DDP (L116-117) and with gradient accumulation
    // (L165-166). vramplan models none of them: the refusal says so rather than that the Trainer has none.
    optimizerInBackward: `${TF_WHEEL}/trainer_optimizer.py: the Trainer steps in backward only through its LOMO/AdaLomo optimizers (lomo_optim's fused backward, L400-415) and the layerwise GaLore/APOLLO ones (per-parameter steps on register_post_accumulate_grad_hook, L164-181; one GPU, no gradient accumulation, L116-117 and L165-166), which vramplan does not model`,
    other: `${H}/trainer.py`,
  },
};

const A =
  'https://github.com/huggingface/accelerate/blob/09228237b95789ea2ad87e669e7b885855b97f97/src/accelerate/utils';

/**
 * MXFP8 under Accelerate: its Transformer Engine backend (mixed_precision fp8, fp8_backend TE) builds
 * te_recipe.MXFP8BlockScaling when the TERecipeKwargs' use_mxfp8_block_scaling is set (apply_fp8_autowrap,
 * accelerate 1.15.0 utils/transformer_engine.py; raises "MXFP8 block scaling is not available" where TE's
 * check_mxfp8_support fails, i.e. below Blackwell), after _prepare_te's convert_model swaps nn.Linear for te.Linear
 * (accelerator.py, ahead of _prepare_deepspeed and FSDP wrapping; it raises unless the model and a torch optimizer
 * come in one prepare call, which transformers 5.14.1's Trainer makes except under FSDP1, trainer.py
 * delay_optimizer_creation). Estimate only: timed and counted as the MXFP8
 * linears torchao's recipe runs (kernels/float8.ts), the same block-scaled GEMMs.
 */
export const TE_MXFP8 = `--compute mxfp8 runs on the Trainer through Accelerate's Transformer Engine backend (fp8_backend TE with use_mxfp8_block_scaling: te_recipe.MXFP8BlockScaling in apply_fp8_autowrap, ${A}/transformer_engine.py; convert_model swaps the linears for te.Linear in _prepare_te, which needs the model and a torch optimizer in one prepare call: DDP, FSDP2, and DeepSpeed with the Trainer's optimizer do so; FSDP1 prepares the model alone and a DeepSpeed config's own optimizer is a DummyOptim, and both raise), estimated as torchao's MXFP8 linears (the same block-scaled GEMMs; TE's own casts and saved quantized inputs, and its converting lm_head too, not modelled); vramplan writes no launch files for it`;

const AW = 'https://pypi.org/project/accelerate/1.15.0/ (wheel) accelerate';

/**
 * Where the Trainer's FP8 runs check the GPU (accelerate 1.15.0 wheel). fp8 (the AO backend): AcceleratorState
 * asks check_cuda_fp8_capability (compute capability 8.9+) and below it only warns and sets its mixed precision to
 * fp16, while Accelerator.fp8_enabled keeps the argument (accelerator.py:479), so _prepare_ao still converts the
 * linears to torchao's Float8Linear, whose torch._scaled_mm raises on the GPU. mxfp8 (the TE backend):
 * apply_fp8_autowrap raises "MXFP8 block scaling is not available" where TE's check_mxfp8_support fails.
 */
export const HF_FLOAT8_CHECK = {
  fp8: `${AW}/state.py:931-942, utils/environment.py:226-244 (check_cuda_fp8_capability: 8.9+; below it Accelerate warns and falls back to fp16, but Accelerator.fp8_enabled follows the fp8 argument, accelerator.py:479, so _prepare_ao still swaps in torchao Float8Linear and torch._scaled_mm raises)`,
  mxfp8: `${AW}/utils/transformer_engine.py:157-168 (apply_fp8_autowrap: check_mxfp8_support, "MXFP8 block scaling is not available")`,
};

/**
 * The Trainer under Accelerate (hf-trainer, hf-fsdp) also trains in FP8: axolotl's `fp8: true` and
 * LLaMA-Factory's `fp8` hand Accelerate an AORecipeKwargs, which converts the linears with torchao.float8's
 * tensorwise recipe (convert_model_to_fp8_ao, accelerate utils/ao.py; https://docs.axolotl.ai/docs/mixed_precision.html
 * "FP8 Mixed Precision"), and MXFP8 through Transformer Engine (TE_MXFP8). hf-deepspeed widens its own set the same
 * way (hf-deepspeed/runs.ts).
 */
export const HF_ACCELERATE_RUNS: EngineRuns = {
  ...HF_TRAINING_RUNS,
  widen: { ...HF_TRAINING_RUNS.widen, float8: ['fp8', 'mxfp8'] },
  sources: {
    ...HF_TRAINING_RUNS.sources,
    float8: `${A}/ao.py`,
  },
  float8Runs: { mxfp8: TE_MXFP8 },
  float8Check: HF_FLOAT8_CHECK,
};

/**
 * A ZeRO stage outside the engine's own: the Trainer shards only through DeepSpeed or FSDP, each its own engine
 * here, so the refusal names the engine that runs the stage.
 */
export const hfZeroRefusal =
  (engine: 'hf-trainer' | 'hf-fsdp' | 'hf-deepspeed') =>
  (o: EstimateOptions, set: RunsSet | 'other'): string | null => {
    if (set !== 'parallel') return null;
    if (engine === 'hf-trainer' && (o.tp > 1 || o.cp > 1))
      return `--${o.tp > 1 ? 'tp' : 'cp'}: got ${o.tp > 1 ? o.tp : o.cp}; expected 1: the Trainer without an fsdp argument runs DDP; tensor and context parallelism come through Accelerate's ParallelismConfig over FSDP2 (TrainingArguments.parallelism_config, ${H}/trainer.py): --framework hf-fsdp`;
    if (engine === 'hf-trainer' && o.zero > 0)
      return `--zero: got ${o.zero}; expected 0: the Trainer without a deepspeed or fsdp argument runs DDP (${H}/trainer.py); it shards through DeepSpeed (--framework hf-deepspeed, ZeRO 1-3) or FSDP (--framework hf-fsdp, ZeRO 2-3)`;
    if (engine === 'hf-fsdp' && o.zero < 2)
      return `--zero: got ${o.zero}; expected 2 or 3: FSDP shards as SHARD_GRAD_OP (ZeRO-2) or FULL_SHARD (ZeRO-3), and its NO_SHARD is DDP (FSDP_SHARDING_STRATEGY, ${A}/constants.py): ZeRO-0 is --framework hf-trainer, ZeRO-1 hf-deepspeed`;
    if (engine === 'hf-deepspeed' && o.zero === 0)
      return `--zero: got 0; expected 1, 2 or 3: DeepSpeed's stage 0 partitions nothing, data parallelism as the Trainer's DDP (${H}/integrations/deepspeed.py): estimate it with --framework hf-trainer`;
    return null;
  };

/**
 * Under FSDP / ZeRO-3 each rank loads a 4-bit base whole onto its GPU before it is sharded (memory.ts
 * BNB_4BIT_LOADS_WHOLE): the note says why the estimate's load phase holds the whole model.
 */
export const bnb4bitLoadNote =
  (engine: 'hf-fsdp' | 'hf-deepspeed') =>
  (o: EstimateOptions, dp: number): string | null => {
    if (dp <= 1 || o.zero !== 3) return null;
    // hf-fsdp's NF4 QLoRA loads through axolotl's layer-by-layer loader (memory.ts AXOLOTL_SHARDED_QUANT_LOAD).
    if (
      engine === 'hf-fsdp' &&
      o.method === 'qlora' &&
      (AXOLOTL_SHARDED_QUANT_LOAD.weights as readonly string[]).includes(o.weights)
    )
      return `hf-fsdp on ${dp} GPUs: a dense 4-bit model loads layer by layer through axolotl's qlora_sharded_model_loading (quantized on each GPU, kept on local rank 0's host, meta elsewhere; utils/model_shard_quant.py load_sharded_model_quant, axolotl 0.19.0) before FSDP shards it: launch writes axolotl.yaml for it, not train.py, which would load the whole model onto every GPU; a model with routed experts loads whole (that loader does not convert fused-expert checkpoints)`;
    return (BNB_4BIT_LOADS_WHOLE as readonly string[]).includes(o.weights)
      ? `${engine} on ${dp} GPUs: each rank loads the whole 4-bit model onto its GPU before ${engine === 'hf-fsdp' ? 'FSDP' : 'DeepSpeed ZeRO-3'} shards it (transformers 5.14.1: with no device_map the 4-bit quantizer sets {"": current device}, quantizers/quantizer_bnb_4bit.py update_device_map; FSDP's rank-0 loading and zero.Init take 16-bit models only): the load phase holds it`
      : null;
  };
