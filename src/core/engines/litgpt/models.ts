/**
 * The catalog models LitGPT 0.5.13 can fine-tune: LitGPT builds only the architectures of its own config
 * registry (litgpt/config.py `configs`), and `litgpt download <repo>` accepts only their repo ids
 * (litgpt/scripts/download.py L43 at v0.5.13 = 26857050fe3ff627cd714fe92f5838f51a3d5efa).
 */

/** One registry entry: the config `name`, the `org/name` repo id `litgpt download` takes, its config.py line. */
export interface LitgptModel {
  name: string;
  repo: string;
  /** Line of the entry's hf_config in litgpt/config.py at v0.5.13 (26857050), template lines for `{}` families. */
  line: number;
}

/** config.py at v0.5.13; every line below is a `hf_config=dict(org=..., name=...)` of that file. */
export const LITGPT_CONFIG_PY =
  'https://github.com/Lightning-AI/litgpt/blob/26857050fe3ff627cd714fe92f5838f51a3d5efa/litgpt/config.py';

const same = (hfId: string, name: string, line: number): [string, LitgptModel] => [
  hfId,
  { name, repo: hfId, line },
];

/**
 * Catalog Hugging Face id → LitGPT registry entry. The registry keeps Meta's first Llama 3.1 repo names
 * (meta-llama/Meta-Llama-3.1-*, since renamed on the Hub to meta-llama/Llama-3.1-*, which redirects), so
 * those download under the registry's name.
 */
export const LITGPT_MODELS: ReadonlyMap<string, LitgptModel> = new Map([
  same('codellama/CodeLlama-7b-hf', 'CodeLlama-7b-hf', 1397),
  same('codellama/CodeLlama-13b-hf', 'CodeLlama-13b-hf', 1414),
  same('codellama/CodeLlama-34b-hf', 'CodeLlama-34b-hf', 1433),
  same('tiiuae/falcon-7b', 'falcon-7b', 488),
  same('tiiuae/falcon-40b', 'falcon-40b', 504),
  same('google/gemma-2b', 'Gemma-2b', 1074),
  same('google/gemma-7b', 'Gemma-7b', 1093),
  same('google/gemma-2-2b', 'Gemma-2-2b', 1112),
  same('google/gemma-2-9b', 'Gemma-2-9b', 1140),
  same('google/gemma-2-27b', 'Gemma-2-27b', 1168),
  same('meta-llama/Llama-2-7b-hf', 'Llama-2-7b-hf', 699),
  same('meta-llama/Llama-2-13b-hf', 'Llama-2-13b-hf', 713),
  same('meta-llama/Llama-2-70b-hf', 'Llama-2-70b-hf', 729),
  same('meta-llama/Meta-Llama-3-8B', 'Llama-3-8B', 759),
  same('meta-llama/Meta-Llama-3-70B', 'Llama-3-70B', 796),
  [
    'meta-llama/Llama-3.1-8B',
    { name: 'Llama-3.1-8B', repo: 'meta-llama/Meta-Llama-3.1-8B', line: 777 },
  ],
  [
    'meta-llama/Llama-3.1-70B',
    { name: 'Llama-3.1-70B', repo: 'meta-llama/Meta-Llama-3.1-70B', line: 815 },
  ],
  [
    'meta-llama/Llama-3.1-405B',
    { name: 'Llama-3.1-405B', repo: 'meta-llama/Meta-Llama-3.1-405B', line: 835 },
  ],
  same('meta-llama/Llama-3.2-1B', 'Llama-3.2-1B', 855),
  same('meta-llama/Llama-3.2-3B', 'Llama-3.2-3B', 875),
  same('meta-llama/Llama-3.3-70B-Instruct', 'Llama-3.3-70B-Instruct', 895),
  same('mistralai/Mistral-7B-v0.1', 'Mistral-7B-v0.1', 1993),
  same('mistralai/Mistral-7B-v0.3', 'Mistral-7B-v0.3', 2096),
  same('mistralai/Mixtral-8x7B-v0.1', 'Mixtral-8x7B-v0.1', 2010),
  same('mistralai/Mixtral-8x22B-Instruct-v0.1', 'Mixtral-8x22B-Instruct-v0.1', 2029),
  same('microsoft/phi-1_5', 'phi-1_5', 1790),
  same('microsoft/phi-2', 'phi-2', 1804),
  same('microsoft/Phi-3-mini-4k-instruct', 'Phi-3-mini-4k-instruct', 1818),
  same('Qwen/Qwen2.5-0.5B', 'Qwen2.5-0.5B', 2265),
  same('Qwen/Qwen2.5-1.5B', 'Qwen2.5-1.5B', 2286),
  same('Qwen/Qwen2.5-3B', 'Qwen2.5-3B', 2307),
  same('Qwen/Qwen2.5-7B', 'Qwen2.5-7B', 2328),
  same('Qwen/Qwen2.5-14B', 'Qwen2.5-14B', 2349),
  same('Qwen/Qwen2.5-32B', 'Qwen2.5-32B', 2370),
  same('Qwen/Qwen2.5-72B', 'Qwen2.5-72B', 2391),
  same('Qwen/Qwen3-0.6B', 'Qwen3-0.6B', 2721),
  same('Qwen/Qwen3-8B', 'Qwen3-8B', 2786),
  same('Qwen/Qwen3-32B', 'Qwen3-32B', 2836),
  same('Qwen/Qwen3-30B-A3B', 'Qwen3-30B-A3B', 2862),
  same('stabilityai/stablelm-base-alpha-3b', 'stablelm-base-alpha-3b', 276),
  same('stabilityai/stablelm-base-alpha-7b', 'stablelm-base-alpha-7b', 280),
  same('TinyLlama/TinyLlama-1.1B-intermediate-step-1431k-3T', 'tiny-llama-1.1b', 2180),
]);

/** The registry entry for a catalog model's Hugging Face id, or undefined (not in LitGPT's registry). */
export const litgptModel = (hfId: string | null | undefined): LitgptModel | undefined =>
  hfId ? LITGPT_MODELS.get(hfId) : undefined;

/** The catalog Hugging Face id a LitGPT repo id (as in checkpoints/<repo>) stands for, or undefined. */
export function catalogHfIdOf(repo: string): string | undefined {
  for (const [hfId, m] of LITGPT_MODELS) if (m.repo === repo || hfId === repo) return hfId;
  return undefined;
}
