// torch AdamW and SGD make their states like each parameter (torch.zeros_like(param) / torch.clone(grad)): LoRA
// adapters an engine builds in the bf16 model dtype get bf16 states whatever --optimizer-states says, while
// bitsandbytes' paged optimizers and fp32 adapters keep fp32 states.
import { describe, expect, it } from 'vitest';
import { setupOf } from '../../src/core/memory/setup.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { OPTIMIZER_PROFILES } from '../../src/core/engines/optimizers.js';
import { optimizerStepBytes } from '../../src/core/time/optimizer-step.js';
import { resolveModel } from '../../src/io/load-model.js';
import { defaultOptions, type EstimateOptions } from '../../src/schema/estimate.js';
import { defaultTimeOptions } from '../../src/schema/time.js';
import { FLOAT_BYTES } from '../../src/core/model/dtypes.js';

const arch = resolveModel('llama-3.1-8b');
const opts = (
  method: 'lora' | 'qlora' | 'full',
  framework: EstimateOptions['framework'],
  optimizer: EstimateOptions['optimizer'] = 'adamw',
): EstimateOptions => ({ ...defaultOptions(method), framework, optimizer });

describe('optimizer states made like their parameters', () => {
  // torchtune v0.6.1 (a6290a5b) recipes/lora_finetune_single_device.py:431 builds the model under
  // training.set_default_dtype(bf16); the LoRA/QLoRA configs step torch.optim.AdamW (fused: True).
  // litgpt v0.5.13 (26857050) litgpt/finetune/lora.py:210 builds under fabric.init_module (bf16-true),
  // and :231 instantiate_torch_optimizer("AdamW") without --quantize.
  it.each([
    ['torchtune', 'lora'],
    ['torchtune', 'qlora'],
    ['litgpt', 'lora'],
  ] as const)('%s %s: AdamW states take the 16-bit adapters width', (fw, method) => {
    const o = opts(method, fw);
    expect(FRAMEWORKS[fw].fp32Adapters).toBe(false);
    expect(o.optimizerStates).toBe('fp32');
    const s = setupOf(arch, o, {});
    expect(s.trainBytes).toBe(2);
    expect(s.stateValueBytes).toBe(s.trainBytes);
    const fp32States = setupOf(arch, { ...o, optimizer: 'adamw-8bit' }, {});
    expect(fp32States.stateValueBytes).toBe(FLOAT_BYTES.fp32);
  });

  it('the optimizer step streams the 16-bit states too', () => {
    const t = defaultTimeOptions(1);
    const tune = optimizerStepBytes(opts('lora', 'torchtune'), t);
    const bf16 = optimizerStepBytes({ ...opts('lora', 'torchtune'), optimizerStates: 'bf16' }, t);
    expect(tune).toBe(bf16);
    expect(optimizerStepBytes(opts('lora', 'hf'), t)).toBeGreaterThan(tune);
  });

  it("bitsandbytes' paged AdamW (LitGPT's --quantize optimizer) keeps fp32 states", () => {
    expect(OPTIMIZER_PROFILES['paged-adamw'].statesLikeParams).toBeUndefined();
    const s = setupOf(arch, opts('qlora', 'litgpt', 'paged-adamw'), {});
    expect(s.stateValueBytes).toBe(FLOAT_BYTES.fp32);
  });

  it('fp32 adapters (PEFT autocast_adapter_dtype) keep fp32 states', () => {
    const s = setupOf(arch, opts('lora', 'hf'), {});
    expect(s.trainBytes).toBe(4);
    expect(s.stateValueBytes).toBe(4);
  });

  // torch/optim/sgd.py at v2.6.0 (torchtune's torch) and v2.8.0 (litgpt's): momentum_buffer =
  // torch.clone(grad).detach(), or torch.empty_like(grad) in _fused_sgd.
  it('SGD momentum buffers follow the adapters as AdamW states do', () => {
    expect(OPTIMIZER_PROFILES['sgd-momentum'].statesLikeParams).toBe(true);
    const sgd = setupOf(arch, opts('lora', 'torchtune', 'sgd-momentum'), {});
    const adam = setupOf(arch, opts('lora', 'torchtune'), {});
    expect(sgd.stateValueBytes).toBe(adam.stateValueBytes);
    expect(sgd.stateValueBytes).toBe(2);
    expect(setupOf(arch, opts('lora', 'hf', 'sgd-momentum'), {}).stateValueBytes).toBe(4);
  });

  it('a full fine-tune keeps --optimizer-states', () => {
    const s = setupOf(arch, opts('full', 'torchtune', 'sgd-momentum'), {});
    expect(s.stateValueBytes).toBe(FLOAT_BYTES.fp32);
  });
});
