/**
 * A model save inside a timed training run (TimeOptions.savesPerStep). Under ZeRO-3 with the 16-bit gather on save,
 * the consolidated state dict walks the model module by module (`_zero3_consolidated_16bit_state_dict`,
 * https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/engine.py): each module's own parameters
 * are all-gathered in one collective (`GatheredParameters(..., modifier_rank=0)`), rank 0 copies each gathered
 * parameter to its host memory (`param.detach().cpu()`), and on leaving the context rank 0 broadcasts every parameter
 * back before the ranks re-partition it (`GatheredParameters.__exit__`,
 * https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/zero/partition_parameters.py). The trainer
 * asks for that state dict whenever it saves, adapters or not (accelerate `get_state_dict`,
 * https://github.com/huggingface/accelerate/blob/v0.31.0/src/accelerate/accelerator.py; PEFT filters the adapter
 * weights out only afterwards on rank 0), so every frozen weight crosses the links and PCIe once per save.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { Linear } from '../model/arch.js';
import { linearModules } from '../model/trainable.js';
import { FRAMEWORKS } from '../memory/frameworks.js';
import { engineLora, loraModel } from '../memory/setup.js';
import type { GpuRates } from './hardware.js';
import type { ModelFacts } from './model-facts.js';
import type { MoeDispatch } from './train-work-types.js';
import { dataParallelLink } from './train-step.js';
import { PAGEABLE_COPY_SHARE } from './offload-work.js';

// The 16-bit gather hands every parameter over in the dtype ZeRO-3 holds it in, 2 bytes (bf16 or fp16), and rank 0
// copies it as it is (`param.detach().cpu()`,
// https://github.com/deepspeedai/DeepSpeed/blob/v0.14.4/deepspeed/runtime/engine.py _zero3_consolidated_16bit_state_dict).
const SAVE_BYTES = 2;
// Modules holding parameters outside the decoder layers: the input embedding, the final norm and the output head
// (https://github.com/huggingface/transformers/blob/v4.41.2/src/transformers/models/qwen2/modeling_qwen2.py
// Qwen2Model, Qwen2ForCausalLM; the Llama-style models alike).
const OUTER_MODULES = 3;

/**
 * Parameter-holding modules the walk gathers, and the adapters' parameters, over the model's layer groups: the linears
 * as the engine's LoRA sees them (memory/setup.ts loraModel: a fused checkpoint linear is one module, adapted whole by
 * one pair), adapted where its adapter list says (engineLora, the list the memory count sums; `expertLinears`: the
 * routed experts are nn.Linear modules run in a loop, each adapted apart).
 */
function savedModules(
  m: ModelFacts,
  o: EstimateOptions,
  expertLinears: boolean,
): { modules: number; adapterParams: number } {
  const lora = o.method === 'lora' || o.method === 'qlora';
  const fw = FRAMEWORKS[o.framework];
  const list = lora ? engineLora(m.arch, o, fw, expertLinears) : { adapters: [], experts: [] };
  const adapted = new Set<Linear>(list.adapters.flatMap((a) => a.linears));
  let modules = OUTER_MODULES;
  // Fused routed experts' adapters (PEFT's ParamWrapper: one rank-r pair per expert, model/peft-moe.ts).
  let adapterParams = list.experts.reduce((a, e) => a + e.group.count * e.params, 0);
  for (const g of loraModel(m.arch, fw).groups) {
    let perLayer = g.normsPerLayer;
    for (const l of linearModules(g)) {
      const on = l.linears.some((x) => adapted.has(x));
      // An adapted linear is its base layer plus its lora_A and lora_B modules.
      perLayer += l.copies * (on ? 3 : 1);
      if (on) adapterParams += g.count * l.copies * o.loraRank * (l.inFeatures + l.outFeatures);
    }
    modules += g.count * perLayer;
  }
  return { modules, adapterParams };
}

/**
 * Seconds of one consolidated 16-bit save of a ZeRO-3 model sharded over `zeroRanks` ranks (0 below ZeRO-3): the all-gathers at the
 * data-parallel bus rate ((n-1)/n of the bytes on the wire), the broadcasts back at the same rate (a ring broadcast's
 * bus bandwidth is its algorithm bandwidth: nccl-tests doc/PERFORMANCE.md,
 * https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md), one collective latency for each module's
 * gather and each parameter's broadcast, and rank 0's copies to the host. `.cpu()` copies into pageable memory (a new
 * CPU tensor, `aten/src/ATen/native/cuda/Copy.cu` copy_kernel_cuda: `memcpy_and_sync`), which the driver stages through
 * its pinned buffer (https://developer.nvidia.com/blog/how-optimize-data-transfers-cuda-cc/): the pageable share of the
 * link's rate, as the offload copies from pageable memory take it (offload-work.ts PAGEABLE_COPY_SHARE).
 */
export function consolidatedSaveSeconds(
  m: ModelFacts,
  o: EstimateOptions,
  w: { gpus: number; zeroRanks: number; tp: number; pp: number; moeDispatch?: MoeDispatch },
  r: GpuRates,
): number {
  if (o.zero < 3 || w.zeroRanks <= 1) return 0;
  const { link, latency } = dataParallelLink(w, r);
  const { modules, adapterParams } = savedModules(m, o, w.moeDispatch === 'loop');
  const bytes = (m.total + adapterParams) * SAVE_BYTES;
  const gather = (bytes * (w.zeroRanks - 1)) / w.zeroRanks / link;
  const broadcast = bytes / link;
  return gather + broadcast + 2 * modules * latency + bytes / (r.host * PAGEABLE_COPY_SHARE);
}
