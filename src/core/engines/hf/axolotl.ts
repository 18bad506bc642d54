/** axolotl YAML config (one file drives model loading, adapters, quantization and the trainer). */
import { Document } from 'yaml';
import { isAdapter, is4bit, TORCH_DTYPE } from '../../launch/common.js';
import { TRL_GRPO_LR_NOTE, trlLearningRate } from './trl-objective.js';
import { DEEPSPEED_FILE } from './deepspeed.js';
import { distributionOf, flattens4bit, quantStorageNote } from './distribution.js';
import { KERNELS_FLASH_ATTN, expertZero3Blocker, trainerOptim } from './trainer.js';
import { LORA_DROPOUT, loraAlpha } from '../../launch/common.js';
import {
  FLASH_ATTN_WHEEL,
  FSDP2_BNB_4BIT,
  FSDP_SHARDED_SAVE,
  changes,
  ruleBlocker,
  ruleNotes,
} from './rules.js';
import { decoderLayerClass, loraTargetModules, savedModuleNames } from '../../launch/modules.js';
import type { EngineOutput, LaunchInput } from '../../launch/types.js';
import { AXOLOTL_REWARDS, axolotlRlBlocker, axolotlRlKeys } from './axolotl-rl.js';

export const AXOLOTL_FILE = 'axolotl.yaml';

/** lora_dropout and the target keys; returns the target notes. */
function loraTargetKeys(x: LaunchInput, c: Record<string, unknown>): string[] {
  const m = loraTargetModules(x.arch, x.options, true);
  // lora.ParamWrapper raises on lora_dropout != 0 (peft v0.20.0 tuners/lora/layer.py, a5526d27).
  c.lora_dropout = m.targetParameters.length > 0 ? 0 : LORA_DROPOUT;
  if (m.targetModules === 'all-linear') c.lora_target_linear = true;
  else c.lora_target_modules = m.targetModules;
  // axolotl v0.18.0 schemas/peft.py lora_target_parameters -> LoraConfig(target_parameters=) (loaders/adapter.py).
  if (m.targetParameters.length > 0) c.lora_target_parameters = m.targetParameters;
  // axolotl lora_modules_to_save -> LoraConfig(modules_to_save=) (--modules-to-save).
  const saved = savedModuleNames(x.arch, x.options);
  if (saved && saved.length > 0) c.lora_modules_to_save = saved;
  return m.notes;
}

// Config reference: https://docs.axolotl.ai/docs/config-reference.html
// Long on purpose: it writes one axolotl config, key by key in the file's own order.
export function emitAxolotl(x: LaunchInput): EngineOutput {
  const engine = 'axolotl';
  const o = x.options;
  const d = distributionOf(x);
  if (d.blocker) return { engine, ok: false, reason: d.blocker };
  const forbidden = ruleBlocker(x, x.gradAccum);
  if (forbidden) return { engine, ok: false, reason: forbidden };
  const opt = trainerOptim(o);
  if ('reason' in opt) return { engine, ok: false, reason: opt.reason };
  const expertBlock = expertZero3Blocker(x, d) ?? axolotlRlBlocker(o);
  if (expertBlock) return { engine, ok: false, reason: expertBlock };
  if (o.method === 'lora' && is4bit(o))
    return {
      engine,
      ok: false,
      reason: 'axolotl loads 4-bit weights only with adapter: qlora (use --method qlora)',
    };
  const notes = [
    ...d.notes,
    ...ruleNotes(x, [FLASH_ATTN_WHEEL, FSDP2_BNB_4BIT, FSDP_SHARDED_SAVE]),
  ];
  const c: Record<string, unknown> = {
    base_model: x.modelRef,
    load_in_8bit: o.weights === 'int8',
    load_in_4bit: is4bit(o),
    strict: false,
    datasets: [{ path: 'mhenrichsen/alpaca_2k_test', type: 'alpaca' }],
    val_set_size: 0,
    output_dir: './outputs',
    sequence_len: o.seq,
    sample_packing: false,
    micro_batch_size: o.batch,
    gradient_accumulation_steps: x.gradAccum,
    num_epochs: 1,
    optimizer: opt.optim,
    lr_scheduler: 'cosine',
    learning_rate: trlLearningRate(o),
    weight_decay: 0.0,
    bf16: o.compute === 'bf16',
    fp16: o.compute === 'fp16',
    tf32: false,
    gradient_checkpointing: o.checkpointing !== 'none',
    // axolotl v0.18.0 schemas/config.py: flash_attention / sdp_attention / eager_attention are deprecated
    // for attn_implementation, which also passes hub-kernel ids through to transformers.
    attn_implementation: o.attention === 'flash' ? KERNELS_FLASH_ATTN : o.attention,
    logging_steps: 10,
  };
  if (is4bit(o)) {
    const bnb: Record<string, unknown> = {
      bnb_4bit_quant_type: o.weights,
      bnb_4bit_use_double_quant: o.doubleQuant,
      llm_int8_has_fp16_weight: false,
    };
    // axolotl's own default storage is bfloat16, whatever the compute dtype: set it to the plan's.
    if (flattens4bit(d, o)) {
      bnb.bnb_4bit_quant_storage = TORCH_DTYPE[o.compute];
      notes.push(quantStorageNote(o, TORCH_DTYPE[o.compute]));
    }
    c.bnb_config_kwargs = bnb;
  }
  if (isAdapter(o)) {
    c.adapter = is4bit(o) ? 'qlora' : 'lora';
    c.lora_r = o.loraRank;
    c.lora_alpha = loraAlpha(o.loraRank);
    notes.push(...loraTargetKeys(x, c));
  }
  if (o.objective === 'grpo') notes.push(TRL_GRPO_LR_NOTE);
  if (o.checkpointing === 'offload') c.activation_offloading = true;
  if (o.checkpointing === 'selective')
    notes.push('axolotl has no selective recompute: full gradient checkpointing is used');
  if (o.chunkedLoss || o.liger) {
    // Liger through axolotl's plugin (src/axolotl/integrations/liger/args.py LigerArgs, commit 067b021):
    // --liger turns on every kernel, --chunked-loss alone the fused linear cross-entropy.
    c.plugins = ['axolotl.integrations.liger.LigerPlugin'];
    if (o.liger) {
      c.liger_rope = true;
      c.liger_rms_norm = true;
      c.liger_glu_activation = true;
    }
    c.liger_fused_linear_cross_entropy = true;
  }
  if (d.kind === 'deepspeed') c.deepspeed = DEEPSPEED_FILE;
  if (d.kind === 'fsdp') {
    // FSDP1 for bitsandbytes 4-bit weights (rule fsdp2-bnb-4bit); keys of axolotl v0.18.0 schemas/fsdp.py.
    const v1 = changes(FSDP2_BNB_4BIT, x);
    c.fsdp_version = v1 ? 1 : 2;
    const f: Record<string, unknown> = {
      offload_params: o.offload === 'optimizer+params',
      // trainer.save_model writes weights only for FULL_STATE_DICT (rule fsdp-sharded-save).
      state_dict_type: changes(FSDP_SHARDED_SAVE, x) ? 'FULL_STATE_DICT' : 'SHARDED_STATE_DICT',
      auto_wrap_policy: 'TRANSFORMER_BASED_WRAP',
    };
    if (v1) {
      // utils/trainer.py sets FSDP_RESHARD_AFTER_FORWARD only to "true": FSDP1 runs its default FULL_SHARD.
      f.sync_module_states = true;
      f.cpu_ram_efficient_loading = true;
      f.use_orig_params = false;
      if (o.zero !== 3)
        notes.push(
          'axolotl FSDP1 shards with FULL_SHARD (ZeRO-3): less memory than planned, slower',
        );
    } else f.reshard_after_forward = o.zero === 3;
    const cls = decoderLayerClass(x.arch);
    if (cls) f.transformer_layer_cls_to_wrap = cls;
    c.fsdp_config = f;
  }
  // Preference / RL: the rl keys before the datasets, and the objective's dataset (axolotl-rl.ts).
  const rl = axolotlRlKeys(o, o.gpus / (o.tp * o.pp));
  // YAML 1.1 mode quotes no/on/yes, which PyYAML (Accelerate, axolotl, torchtune readers) would read as booleans.
  const doc = new Document(rl ? withRl(c, rl.keys, rl.dataset) : c, { version: '1.1' });
  doc.commentBefore = ` axolotl config (generated by vramplan). Run: axolotl train ${AXOLOTL_FILE}`;
  const files = [{ path: AXOLOTL_FILE, content: doc.toString() }];
  if (o.objective === 'grpo') files.push(AXOLOTL_REWARDS);
  return { engine, ok: true, files, notes };
}

/** The config with the rl keys inserted before `datasets`, whose one entry becomes `dataset`. */
function withRl(
  c: Record<string, unknown>,
  keys: Record<string, unknown>,
  dataset: Record<string, unknown>,
): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(c)) {
    if (k === 'datasets') Object.assign(out, keys, { datasets: [dataset] });
    else out[k] = v;
  }
  return out;
}
