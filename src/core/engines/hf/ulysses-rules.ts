/**
 * What DeepSpeed Ulysses (hf-deepspeed `--cp N`: accelerate's ParallelismConfig sp_backend "deepspeed", sp_size N)
 * raises at the pinned deepspeed 0.19.8 (runtime/sequence_parallel/ulysses_sp.py, parallel_state_sp.py, from the PyPI
 * sdist): the head split, the attention kernels it wraps, the sequence split of each batch and the layout of its groups.
 */
import type { Arch } from '../../model/arch.js';
import type { Rule } from '../rules.js';

const ULYSSES =
  'https://github.com/deepspeedai/DeepSpeed/blob/v0.19.8/deepspeed/runtime/sequence_parallel';

/** The decoder's heads, as register_with_transformers reads them from the config (num_attention_heads, num_key_value_heads). */
const headsOf = (arch: Arch): { heads: number; kvHeads: number } => {
  const g = arch.groups.find((x) => x.name === 'decoder') ?? arch.groups[0];
  return { heads: g?.heads ?? 1, kvHeads: g?.kvHeads ?? 1 };
};

/** UlyssesSPAttentionHF.__init__: heads % sp, and kv heads a multiple or a divisor of sp. */
export const DEEPSPEED_ULYSSES_HEADS: Rule = {
  id: 'deepspeed-ulysses-heads',
  says: 'DeepSpeed Ulysses splits the attention heads over the --cp ranks: it raises "Attention head count ... is not divisible by SP size" unless the query heads divide by --cp, and "KV attention head count ... is not divisible by SP size ... or vice versa" unless the k/v heads divide by --cp or --cp by them (fewer k/v heads than ranks are repeated to one a rank): pick a --cp that divides the heads',
  reason: (x) => {
    const { heads, kvHeads } = headsOf(x.arch);
    return `DeepSpeed Ulysses splits the attention heads over the --cp ranks, and ${x.arch.modelType} has ${heads} query heads and ${kvHeads} k/v heads: --cp ${x.options.cp} needs the query heads to divide by it and the k/v heads to divide by it or it by them (UlyssesSPAttentionHF raises ValueError otherwise: rule deepspeed-ulysses-heads, deepspeed ==0.19.8, ${ULYSSES}/ulysses_sp.py#L147-L152)`;
  },
  library: 'deepspeed',
  versions: '==0.19.8',
  source: `${ULYSSES}/ulysses_sp.py#L147-L152`,
  effect: 'forbid',
  applies: (x) => {
    const n = x.options.cp;
    if (n <= 1) return false;
    const { heads, kvHeads } = headsOf(x.arch);
    return heads % n !== 0 || !(kvHeads % n === 0 || n % kvHeads === 0);
  },
};

/** register_with_transformers: eager attention needs the 4-D mask Ulysses drops. */
export const DEEPSPEED_ULYSSES_EAGER: Rule = {
  id: 'deepspeed-ulysses-no-eager',
  says: 'DeepSpeed Ulysses raises "eager attn_implementation isn\'t currently supported by Ulysses sequence parallelism because it requires a 4D attention_mask" for eager attention: --attention flash or sdpa with --cp',
  library: 'deepspeed',
  versions: '==0.19.8',
  source: `${ULYSSES}/ulysses_sp.py#L466-L473`,
  effect: 'forbid',
  applies: (x) => x.options.cp > 1 && x.options.attention === 'eager',
};

/** UlyssesSPDataLoaderAdapter splits each batch's sequence evenly; parallel_state_sp has no TP dimension. */
export const DEEPSPEED_ULYSSES_LAYOUT: Rule = {
  id: 'deepspeed-ulysses-layout',
  says: 'DeepSpeed Ulysses splits each batch evenly over the --cp ranks (UlyssesSPDataLoaderAdapter raises "batch\'s seqlen=... isn\'t divisible by sp-size") and builds its groups as sequence x data parallel only (parallel_state_sp.py: data_parallel_size = world_size // sequence_parallel_size), so --seq must divide by --cp and --cp runs without --tp',
  library: 'deepspeed',
  versions: '==0.19.8',
  source: `${ULYSSES}/ulysses_sp.py#L705-L707`,
  effect: 'forbid',
  applies: (x) => x.options.cp > 1 && (x.options.seq % x.options.cp !== 0 || x.options.tp > 1),
};
