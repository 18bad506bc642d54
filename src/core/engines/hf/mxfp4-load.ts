/**
 * Training a checkpoint that ships MXFP4 experts (gpt-oss) with transformers: the plan trains 16-bit weights, so
 * the launch files load them dequantized, as the model's fine-tuning recipes do (huggingface/gpt-oss-recipes
 * sft.py and OpenAI's cookbook `Mxfp4Config(dequantize=True)`; axolotl's examples/gpt-oss
 * `model_quantization_config: Mxfp4Config` with `dequantize: true`). transformers 5.14.1 Mxfp4HfQuantizer keeps the
 * MXFP4 weights wherever Triton >= 3.4 and `kernels` are installed (validate_environment), which flash attention's
 * kernels-hub package is, and reports `is_trainable` False, so the Trainer refuses the model
 * (https://github.com/huggingface/transformers/blob/v5.14.1/src/transformers/quantizers/quantizer_mxfp4.py).
 */
import { nativeWeights } from '../../model/native-weights.js';
import type { LaunchInput } from '../../launch/types.js';

/** Floating-point weights a dequantized MXFP4 checkpoint loads as (the load dtype); bitsandbytes plans pass their own config. */
const FLOAT_WEIGHTS: ReadonlySet<string> = new Set(['bf16', 'fp16', 'fp32']);

/** Whether the plan trains an MXFP4 checkpoint's weights as floating point (they load dequantized). */
export const dequantizesMxfp4 = (x: Pick<LaunchInput, 'arch' | 'options'>): boolean =>
  nativeWeights(x.arch) === 'mxfp4' && FLOAT_WEIGHTS.has(x.options.weights);

/** train.py's lines that load the MXFP4 checkpoint dequantized to the load dtype. */
export const MXFP4_DEQUANTIZE_PY = `# The checkpoint's MXFP4 experts load dequantized: transformers trains no MXFP4 weights.
from transformers import Mxfp4Config

model_kwargs["quantization_config"] = Mxfp4Config(dequantize=True)
`;

/** axolotl.yaml's keys for the same (axolotl loaders/model.py builds the named transformers config). */
export const MXFP4_DEQUANTIZE_AXOLOTL = {
  model_quantization_config: 'Mxfp4Config',
  model_quantization_config_kwargs: { dequantize: true },
} as const;
