/** Qwen3-Omni (qwen3_omni_moe): the thinker vLLM serves, a Qwen3-MoE text model with the Qwen3-VL vision tower and the AuT audio encoder. */
import type { ArchBody } from './blocks.js';
import { Fields } from './fields.js';
import { multimodal, qwenVision } from './multimodal.js';

// HF Qwen3OmniMoeAudioEncoderConfig (configuration_qwen3_omni_moe.py, transformers 5.14.1) defaults: d_model=1280,
// encoder_layers=32, encoder_ffn_dim=5120, downsample_hidden_size=480, output_dim=3584, num_mel_bins=128.
const AUT = { d: 1280, layers: 32, ffn: 5120, down: 480, out: 3584, mel: 128 };

/**
 * Qwen3OmniMoeAudioEncoder (modeling_qwen3_omni_moe.py, 5.14.1): three stride-2 3x3 Conv2d (1 -> D, D -> D, D -> D,
 * with bias), conv_out Linear(D x the mel bins after three halvings, d_model, no bias), encoder_layers Whisper-style
 * layers (q/k/v/out with bias, fc1/fc2 with bias, two LayerNorms), ln_post, proj1 (d_model) and proj2 (output_dim);
 * its positions are sinusoids (a buffer). 649,894,784 at the defaults, as transformers counts it.
 */
export function autParams(a: Fields): number {
  const d = a.int('d_model', AUT.d);
  const ffn = a.int('encoder_ffn_dim', AUT.ffn);
  const down = a.int('downsample_hidden_size', AUT.down);
  const out = a.int('output_dim', AUT.out);
  const freq = Math.floor(
    (Math.floor((Math.floor((a.int('num_mel_bins', AUT.mel) + 1) / 2) + 1) / 2) + 1) / 2,
  );
  const convs = 10 * down + 2 * (9 * down * down + down) + down * freq * d;
  const layer = 4 * (d * d + d) + 4 * d + (d * ffn + ffn) + (ffn * d + d);
  return (
    convs + a.int('encoder_layers', AUT.layers) * layer + 2 * d + (d * d + d) + (d * out + out)
  );
}

/**
 * The thinker (vLLM registry.py maps Qwen3OmniMoeForConditionalGeneration to Qwen3OmniMoeThinkerForConditionalGeneration,
 * which serves text out): thinker_config's text_config read as Qwen3-MoE, its vision_config as Qwen3-VL's tower, and the
 * audio encoder's weights beside them. The talker and code2wav (speech out) are not loaded there and are not read.
 */
export const qwen3OmniThinker =
  (text: (t: Fields) => ArchBody) =>
  (c: Fields): ArchBody => {
    const thinker = c.sub('thinker_config');
    const body = multimodal(text, qwenVision)(thinker);
    return { ...body, otherParams: body.otherParams + autParams(thinker.sub('audio_config')) };
  };
