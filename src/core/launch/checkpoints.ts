/**
 * Which checkpoint a serving plan loads: a published repository in the plan's weight format when one is known
 * (catalogs/checkpoints.json, by the base model's Hugging Face id), else the base repository with the quantize step
 * that makes one.
 */
import type { WeightDtype } from '../../schema/estimate.js';

export interface Checkpoint {
  /** What MODEL points at: a repository id or a local path (GGUF: a repository of GGUF files or a .gguf file). */
  ref: string;
  /** Published: the repository exists in this format; otherwise `steps` make it from the base repository. */
  published: boolean;
  steps: string[];
  /** The user's own checkpoint (`job.haveCheckpoints`): `ref` is a placeholder the README has them set. */
  own?: boolean;
}

/** A published checkpoint as the core reads it: the repository that holds a weight format of a base model. */
export interface PublishedRepo {
  readonly weights: WeightDtype;
  readonly repo: string;
  /** The model that was quantized, where it is not the base itself (its instruction-tuned release). */
  readonly quantizedFrom?: string;
  /**
   * Its config.json declares fewer positions (`declaredPositions`) than the base model the plan counts, and its
   * model card gives YaRN past them: `originalMaxPositions` stretched up to `maxFactor` times (contextOverride).
   */
  readonly contextExtension?: {
    readonly declaredPositions: number;
    readonly yarn: {
      readonly originalMaxPositions: number;
      readonly maxFactor: number;
      readonly ropeTheta: number;
    };
  };
}

/** Reads the published checkpoints by the base model's Hugging Face id (catalogs/checkpoints.json, io/load-catalog.ts). */
export type PublishedSource = () => Readonly<Record<string, readonly PublishedRepo[]>>;

let source: PublishedSource | null = null;
let table: Readonly<Record<string, readonly PublishedRepo[]>> | null = null;

/** Sets where the published checkpoints are read from (on the first lookup); io/load-catalog.ts sets the catalog. */
export function usePublishedCheckpoints(read: PublishedSource): void {
  source = read;
  table = null;
}

function published(): Readonly<Record<string, readonly PublishedRepo[]>> {
  if (table) return table;
  if (!source)
    throw new Error('the published checkpoints are not loaded (import io/load-catalog.ts first)');
  return (table = source());
}

/**
 * The published repositories of the model `hfId`: those listed under it as a base model, or, where it is not listed,
 * those quantized from it (`quantizedFrom`: an instruction-tuned release the catalog resolves to its base's entry).
 */
function publishedRepos(hfId: string): readonly PublishedRepo[] {
  // Hub ids are case-insensitive (a catalog alias or a --model flag may spell one in another case).
  const id = hfId.toLowerCase();
  const table = published();
  const base = Object.keys(table).find((k) => k.toLowerCase() === id);
  if (base !== undefined) return table[base] ?? [];
  return Object.values(table).flatMap((list) =>
    list.filter((c) => c.quantizedFrom?.toLowerCase() === id),
  );
}

/** The published repository in `weights` of the model `hfId` (publishedRepos), or undefined. */
function publishedRepo(hfId: string, weights: WeightDtype): string | undefined {
  return publishedRepos(hfId).find((c) => c.weights === weights)?.repo;
}

/** The weight formats of the model `hfId`'s published repositories (publishedRepos), in the catalog's order. */
export function publishedFormats(hfId: string | null): WeightDtype[] {
  if (hfId === null) return [];
  return [...new Set(publishedRepos(hfId).map((c) => c.weights))];
}

/**
 * The config override (JSON text, for vLLM's --hf-overrides and SGLang's --json-model-override-args) that
 * lets the published checkpoint `ref` serve `context` tokens where its config.json declares fewer: YaRN at the
 * least whole factor that reaches the context (the cards' own factors are whole: 2.0, 4.0), and
 * max_position_embeddings set to the stretched length, since both engines take the context bound from
 * max_position_embeddings without multiplying a YaRN factor in (vllm 0.33.0 config/model.py
 * _get_and_verify_max_len: "YaRN variants leave max_position_embeddings already scaled"; sglang 0.5.23
 * srt/utils/hf_transformers/common.py get_context_length: factor 1 where original_max_position_embeddings is
 * given) and refuse a longer one. rope_theta is repeated inside rope_parameters, as vLLM's context-extension
 * example does (https://docs.vllm.ai/en/stable/examples/offline_inference/context_extension/). The declared
 * positions and the card's YaRN are catalogs/checkpoints.json's `contextExtension` of the repository. null: no
 * override needed, or none is known.
 */
export function contextOverride(ref: string, context: number): string | null {
  const c = extensionOf(ref);
  if (!c || context <= c.declaredPositions) return null;
  const { originalMaxPositions: original, maxFactor, ropeTheta } = c.yarn;
  const factor = Math.ceil(context / original);
  if (factor > maxFactor) return null;
  // Floats written as floats (the cards' "factor": 4.0; transformers validates the YaRN factor as a float).
  const rope = `{"rope_type": "yarn", "factor": ${factor}.0, "original_max_position_embeddings": ${original}, "rope_theta": ${ropeTheta}.0}`;
  return `{"max_position_embeddings": ${original * factor}, "rope_parameters": ${rope}}`;
}

/** The context extension catalogs/checkpoints.json gives the published repository `ref`, or undefined. */
function extensionOf(ref: string): PublishedRepo['contextExtension'] {
  for (const list of Object.values(published()))
    for (const c of list) if (c.repo === ref && c.contextExtension) return c.contextExtension;
  return undefined;
}

export const GGUF_TYPE: Partial<Record<WeightDtype, string>> = {
  q4_0: 'Q4_0',
  q4_k_m: 'Q4_K_M',
  q5_k_m: 'Q5_K_M',
  q6_k: 'Q6_K',
  q8_0: 'Q8_0',
  q2_k: 'Q2_K',
  q3_k_m: 'Q3_K_M',
  iq1_s: 'IQ1_S',
  iq2_xxs: 'IQ2_XXS',
  iq2_m: 'IQ2_M',
  iq3_xxs: 'IQ3_XXS',
  iq3_m: 'IQ3_M',
};

/**
 * The checkpoint for `weights` of the model `hfId` (or `fallback`, the plan's model reference). `shipped` is the
 * format the model's own repository ships in (config.json quantization_config, core/model/native-weights.ts):
 * a plan in that format loads the repository as it is (DeepSeek-V3's block FP8), with nothing to make.
 */
export function checkpointFor(
  hfId: string | null,
  fallback: string,
  weights: WeightDtype,
  shipped: WeightDtype | null = null,
): Checkpoint {
  if (shipped === weights) return { ref: hfId ?? fallback, published: true, steps: [] };
  const known = hfId ? publishedRepo(hfId, weights) : undefined;
  if (known) return { ref: known, published: true, steps: [] };
  const gguf = GGUF_TYPE[weights];
  if (gguf) {
    // llama.cpp convert_hf_to_gguf.py then llama-quantize (tools/quantize/README.md). The IQ types take an importance
    // matrix: llama-quantize stops with "this quantization requires an imatrix!" without one (src/llama-quant.cpp
    // at ggml-org/llama.cpp@007dbbf3, tensor_requires_imatrix), made by llama-imatrix (tools/imatrix/README.md).
    const file = `model-${gguf}.gguf`;
    const imatrix = gguf.startsWith('IQ');
    return {
      ref: file,
      published: false,
      steps: [
        `huggingface-cli download ${fallback} --local-dir base`,
        'python convert_hf_to_gguf.py base --outfile model-f16.gguf --outtype f16',
        ...(imatrix
          ? [
              'llama-imatrix -m model-f16.gguf -f calibration.txt -o imatrix.gguf  # calibration.txt: your text',
            ]
          : []),
        `llama-quantize ${imatrix ? '--imatrix imatrix.gguf ' : ''}model-f16.gguf ${file} ${gguf}`,
      ],
    };
  }
  // fp8 from a 16-bit checkpoint: the serving engines quantize it while loading (`--quantization fp8`,
  // https://docs.vllm.ai/en/latest/features/quantization/fp8.html; sglang launch.ts passes the same flag), so
  // MODEL is the base repository. An llm-compressor copy would carry quant_method compressed-tensors, which
  // that flag refuses ("Quantization method specified in the model config (compressed-tensors) does not match
  // ... (fp8)", ModelConfig._verify_quantization, sglang 0.5.23 python/sglang/srt/configs/model_config.py).
  if (weights === 'fp8' && shipped === null)
    return { ref: hfId ?? fallback, published: false, steps: [] };
  switch (weights) {
    case 'int4':
    case 'fp8':
    case 'int8':
    case 'nvfp4': {
      // llm-compressor oneshot recipes: AWQ W4A16, FP8_DYNAMIC, W8A8, NVFP4 (github.com/vllm-project/llm-compressor examples).
      const scheme = {
        int4: 'W4A16 (AWQModifier)',
        fp8: 'FP8_DYNAMIC',
        int8: 'W8A8',
        nvfp4: 'NVFP4',
      }[weights];
      return {
        ref: `./${fallback.split('/').pop() ?? 'model'}-${weights}`,
        published: false,
        steps: [
          `pip install llmcompressor; quantize ${fallback} with llm-compressor oneshot, scheme ${scheme}, saving to the folder MODEL names`,
        ],
      };
    }
    default:
      return { ref: fallback, published: false, steps: [] };
  }
}

/** The base model and (first) weight format of a published checkpoint (`--from` reads serve.sh back), or null. */
export function publishedBase(ref: string): { hfId: string; weights: WeightDtype } | null {
  for (const [hfId, list] of Object.entries(published()))
    for (const c of list) if (c.repo === ref) return { hfId, weights: c.weights };
  return null;
}
