/** Attention-free decoders: pure Mamba (v1), Falcon-Mamba and Mamba2 stacks, each layer one RMSNorm and one mixer. */
import type { LayerGroup } from '../arch.js';
import { group, hasDropout, lin } from './blocks.js';
import type { ArchBody, GroupBase } from './blocks.js';
import { ConfigError, Fields } from './fields.js';
import { mamba2Mixer } from './hybrid.js';
import { vocabFields } from './llama.js';
import type { Mixer } from './llama.js';

// HF MambaConfig / FalconMambaConfig (configuration_mamba.py, configuration_falcon_mamba.py, transformers 5.14.1)
// defaults: state_size=16, conv_kernel=4, expand=2 (intermediate_size = expand x hidden_size), time_step_rank
// "auto" (ceil(hidden_size / 16)), use_bias=False, use_conv_bias=True, tie_word_embeddings=True.
const MAMBA = { dState: 16, kernel: 4, expand: 2, dtRankDiv: 16 };

/** A Mamba (v1) selective-scan mixer's shapes: its projections' widths and biases, and the norms' parameters. */
export interface SelectiveScan {
  h: number;
  inner: number;
  /** state size */
  n: number;
  /** conv kernel */
  k: number;
  /** dt rank */
  rank: number;
  /** in_proj and out_proj biases */
  bias: boolean;
  convBias: boolean;
  /** parameters of norms over dt, B and C (Jamba's RMSNorms), 0 where they carry no weights */
  normParams: number;
}

/**
 * The mixer of a selective-scan layer (mamba1Mixer, recurrent.ts jambaMixers): in_proj, x_proj, dt_proj and out_proj;
 * the conv, A_log and D as parameters; the conv window and scan state per sequence, read as inner heads of
 * state_size x 1. The scan runs token by token (no chunk matrices): chunk 1.
 */
export function selectiveScanMixer(x: SelectiveScan): Mixer {
  const { h, inner, n, k, rank } = x;
  return {
    linears: [
      lin('other', h, 2 * inner, x.bias),
      lin('other', inner, rank + 2 * n, false),
      lin('other', rank, inner, true),
      lin('other', inner, h, x.bias),
    ],
    params: inner * k + (x.convBias ? inner : 0) + inner * n + inner + x.normParams,
    state: {
      kind: 'mamba',
      heads: inner,
      keyDim: n,
      valueDim: 1,
      convChannels: inner,
      convKernel: k,
      stateBytes: null,
      chunk: 1,
    },
  };
}

/**
 * MambaMixer / FalconMambaMixer (modeling_mamba.py, modeling_falcon_mamba.py, transformers 5.14.1): in_proj hidden ->
 * 2 inner (x, z; bias use_bias), a depthwise conv1d over inner (bias use_conv_bias), x_proj inner -> dt_rank +
 * 2 state_size (no bias), dt_proj dt_rank -> inner (with bias), A_log inner x state_size, D, out_proj (bias
 * use_bias); Falcon-Mamba's B/C/dt RMSNorms carry no weights (rms_forward). State per sequence: the conv window
 * inner x (conv_kernel - 1) and the selective-scan state inner x state_size (vLLM mamba1_state_shape), read as
 * inner heads of state_size x 1, as Jamba's.
 */
export function mamba1Mixer(c: Fields): Mixer {
  const h = c.int('hidden_size');
  const inner = c.optInt('intermediate_size') ?? c.int('expand', MAMBA.expand) * h;
  const n = c.int('state_size', MAMBA.dState);
  const k = c.int('conv_kernel', MAMBA.kernel);
  const rank =
    typeof c.raw.time_step_rank === 'number'
      ? c.int('time_step_rank')
      : Math.ceil(h / MAMBA.dtRankDiv);
  const bias = c.bool('use_bias', false);
  const convBias = c.bool('use_conv_bias', true);
  return selectiveScanMixer({ h, inner, n, k, rank, bias, convBias, normParams: 0 });
}

// HF Mamba2Config (configuration_mamba2.py, transformers 5.14.1) defaults: num_heads=128, head_dim=64,
// state_size=128, n_groups=8, conv_kernel=4, expand=2, chunk_size=256, use_bias=False, use_conv_bias=True,
// tie_word_embeddings=False; it requires expand x hidden_size = num_heads x head_dim.
const MAMBA2 = {
  heads: 128,
  headDim: 64,
  dState: 128,
  groups: 8,
  kernel: 4,
  expand: 2,
  chunk: 256,
};

/** Mamba2Mixer (modeling_mamba2.py, transformers 5.14.1): the Mamba2 mixer Nemotron-H and Granite 4.0 share. */
export function mamba2OnlyMixer(c: Fields): Mixer {
  const hidden = c.int('hidden_size');
  const heads = c.int('num_heads', MAMBA2.heads);
  const headDim = c.int('head_dim', MAMBA2.headDim);
  const inner = c.int('expand', MAMBA2.expand) * hidden;
  if (heads * headDim !== inner)
    throw new ConfigError(
      `${c.path}num_heads`,
      heads,
      `num_heads x head_dim = expand x hidden_size (${inner})`,
    );
  return mamba2Mixer({
    hidden,
    heads,
    headDim,
    groups: c.int('n_groups', MAMBA2.groups),
    dState: c.int('state_size', MAMBA2.dState),
    kernel: c.int('conv_kernel', MAMBA2.kernel),
    convBias: c.bool('use_conv_bias', true),
    projBias: c.bool('use_bias', false),
    stateBytes: null,
    chunk: c.int('chunk_size', MAMBA2.chunk),
  });
}

/**
 * A stack of num_hidden_layers blocks, each an RMSNorm (hidden) and the mixer, no MLP and no attention
 * (MambaBlock / Mamba2Block); embeddings, norm_f and lm_head (tied by default for Mamba and Falcon-Mamba, not for
 * Mamba2). Nothing grows with the context: every layer keeps the mixer's fixed state per sequence.
 */
export const ssmStack =
  (mixerOf: (c: Fields) => Mixer, tiedDefault: boolean) =>
  (c: Fields): ArchBody => {
    const hidden = c.int('hidden_size');
    const m = mixerOf(c);
    const base: GroupBase = {
      name: 'decoder',
      hidden,
      heads: m.state.heads,
      kvHeads: m.state.heads,
      headDim: m.state.keyDim,
      vHeadDim: m.state.valueDim,
      ffn: 0,
      gated: false,
      experts: 1,
      topK: 1,
      norm: 'rms',
      normsPerLayer: 1,
      parallelResidual: false,
      dropout: hasDropout(c, {}),
      causal: true,
      crossAttention: false,
      slidingWindow: null,
      mlaCacheWidth: null,
    };
    const layers: LayerGroup = {
      ...group(base, m.linears, hidden + m.params, c.int('num_hidden_layers')),
      recurrent: m.state,
    };
    return {
      kind: 'causal-lm',
      groups: [layers],
      hidden,
      ...vocabFields(c.int('vocab_size'), hidden, c.bool('tie_word_embeddings', tiedDefault)),
      otherParams: hidden,
      // No positions at all (no rotary, no table): the scan runs over any length, and a config that names no
      // max_position_embeddings (Falcon-Mamba, Mamba) declares no trained length to warn past.
      maxPositions: c.optInt('max_position_embeddings') ?? Number.MAX_SAFE_INTEGER,
      unboundedPositions: true,
    };
  };
