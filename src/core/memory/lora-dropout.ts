/**
 * Whether a LoRA run puts dropout in front of its adapters. PEFT's LoRA layer holds one nn.Dropout per adapted
 * linear, nn.Identity at lora_dropout 0 (peft v0.20.0 tuners/lora/layer.py LoraLayer.update_layer,
 * Linear.forward `lora_B(lora_A(dropout(x)))`); torchtune's LoRALinear the same (torchtune v0.6.1
 * torchtune/modules/peft/lora.py `nn.Dropout(p=dropout) if dropout > 0.0 else nn.Identity()`); LitGPT's
 * LoRALinear one per linear too (`nn.Dropout(p=lora_dropout)` where lora_dropout > 0, litgpt/lora.py). Pure.
 */
import type { EstimateOptions } from '../../schema/estimate.js';
import type { FrameworkProfile } from './framework-profile.js';

/**
 * The run's --lora-dropout where given (0 turns it off), else the memory profile's default, or a calibration
 * run that set it (TimeOptions.loraDropout).
 */
export function loraDropoutOn(
  o: Pick<EstimateOptions, 'loraDropout'>,
  fw: Pick<FrameworkProfile, 'loraDropout'>,
  runSet?: boolean,
): boolean {
  if (o.loraDropout !== undefined) return o.loraDropout > 0;
  return fw.loraDropout || runSet === true;
}
