/**
 * The torchtune builder for a model that is not a catalog id (a config.json path, a Hub id): found by its
 * model_type and shape, as each builder fixes them (vocab_size, num_layers, num_heads, num_kv_heads, embed_dim,
 * max_seq_len in torchtune/models/<module>/_model_builders.py at v0.6.1), so a config of Llama-2-7B maps to
 * llama2_7b exactly as the catalog id `llama-2-7b` does.
 */
import type { Arch } from '../../model/arch.js';
import { layersOf } from '../../model/structure.js';
import { TUNE_MODELS, type TuneModel } from './components.js';

interface Shape {
  /** The catalog id TUNE_MODELS names the builder under. */
  id: string;
  modelTypes: readonly string[];
  vocab: number;
  layers: number;
  heads: number;
  kvHeads: number;
  hidden: number;
  /** max_seq_len the builder sets (told apart where two builders share a shape: llama3 and llama3_1). */
  maxSeq: number;
}

const LLAMA = ['llama'];
// torchtune/models/<module>/_model_builders.py at v0.6.1: the builder's arguments.
const SHAPES: readonly Shape[] = [
  {
    id: 'llama-2-7b',
    modelTypes: LLAMA,
    vocab: 32000,
    layers: 32,
    heads: 32,
    kvHeads: 32,
    hidden: 4096,
    maxSeq: 4096,
  },
  {
    id: 'llama-2-13b',
    modelTypes: LLAMA,
    vocab: 32000,
    layers: 40,
    heads: 40,
    kvHeads: 40,
    hidden: 5120,
    maxSeq: 4096,
  },
  {
    id: 'llama-2-70b',
    modelTypes: LLAMA,
    vocab: 32000,
    layers: 80,
    heads: 64,
    kvHeads: 8,
    hidden: 8192,
    maxSeq: 4096,
  },
  {
    id: 'codellama-7b',
    modelTypes: LLAMA,
    vocab: 32016,
    layers: 32,
    heads: 32,
    kvHeads: 32,
    hidden: 4096,
    maxSeq: 16384,
  },
  {
    id: 'codellama-13b',
    modelTypes: LLAMA,
    vocab: 32016,
    layers: 40,
    heads: 40,
    kvHeads: 40,
    hidden: 5120,
    maxSeq: 16384,
  },
  {
    id: 'llama-3-8b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 32,
    heads: 32,
    kvHeads: 8,
    hidden: 4096,
    maxSeq: 8192,
  },
  {
    id: 'llama-3-70b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 80,
    heads: 64,
    kvHeads: 8,
    hidden: 8192,
    maxSeq: 8192,
  },
  {
    id: 'llama-3.1-8b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 32,
    heads: 32,
    kvHeads: 8,
    hidden: 4096,
    maxSeq: 131072,
  },
  {
    id: 'llama-3.1-70b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 80,
    heads: 64,
    kvHeads: 8,
    hidden: 8192,
    maxSeq: 131072,
  },
  {
    id: 'llama-3.1-405b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 126,
    heads: 128,
    kvHeads: 8,
    hidden: 16384,
    maxSeq: 131072,
  },
  {
    id: 'llama-3.2-1b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 16,
    heads: 32,
    kvHeads: 8,
    hidden: 2048,
    maxSeq: 131072,
  },
  {
    id: 'llama-3.2-3b',
    modelTypes: LLAMA,
    vocab: 128256,
    layers: 28,
    heads: 24,
    kvHeads: 8,
    hidden: 3072,
    maxSeq: 131072,
  },
  {
    id: 'mistral-7b-v0.1',
    modelTypes: ['mistral'],
    vocab: 32000,
    layers: 32,
    heads: 32,
    kvHeads: 8,
    hidden: 4096,
    maxSeq: 32768,
  },
  {
    id: 'gemma-2b',
    modelTypes: ['gemma'],
    vocab: 256000,
    layers: 18,
    heads: 8,
    kvHeads: 1,
    hidden: 2048,
    maxSeq: 8192,
  },
  {
    id: 'gemma-7b',
    modelTypes: ['gemma'],
    vocab: 256000,
    layers: 28,
    heads: 16,
    kvHeads: 16,
    hidden: 3072,
    maxSeq: 8192,
  },
  {
    id: 'gemma-2-2b',
    modelTypes: ['gemma2'],
    vocab: 256000,
    layers: 26,
    heads: 8,
    kvHeads: 4,
    hidden: 2304,
    maxSeq: 8192,
  },
  {
    id: 'gemma-2-9b',
    modelTypes: ['gemma2'],
    vocab: 256000,
    layers: 42,
    heads: 16,
    kvHeads: 8,
    hidden: 3584,
    maxSeq: 8192,
  },
  {
    id: 'gemma-2-27b',
    modelTypes: ['gemma2'],
    vocab: 256000,
    layers: 46,
    heads: 32,
    kvHeads: 16,
    hidden: 4608,
    maxSeq: 8192,
  },
  {
    id: 'phi-3-mini-4k-instruct',
    modelTypes: ['phi3'],
    vocab: 32064,
    layers: 32,
    heads: 32,
    kvHeads: 32,
    hidden: 3072,
    maxSeq: 4096,
  },
];

const fits = (s: Shape, arch: Arch, heads: number, kvHeads: number): boolean =>
  s.modelTypes.includes(arch.modelType) &&
  s.vocab === arch.vocab &&
  s.hidden === arch.hidden &&
  s.layers === layersOf(arch) &&
  s.heads === heads &&
  s.kvHeads === kvHeads;

/** The catalog id of the torchtune builder `arch` maps to (its own id, else by model_type and shape), or null. */
export function tuneModelId(arch: Arch): string | null {
  if (TUNE_MODELS[arch.id]) return arch.id;
  const g = arch.groups.find((x) => x.heads > 0);
  if (!g) return null;
  const same = SHAPES.filter((s) => fits(s, arch, g.heads, g.kvHeads));
  return (same.find((s) => s.maxSeq === arch.maxPositions) ?? same[0])?.id ?? null;
}

/** The torchtune builder `arch` maps to, or undefined. */
export function tuneModelOf(arch: Arch): TuneModel | undefined {
  const id = tuneModelId(arch);
  return id === null ? undefined : TUNE_MODELS[id];
}
