/** Decode-attention kernel families whose KV read rate a kernel benchmark gives (time/decode-attention.ts). */
export type DecodeAttentionFamily = 'flashinfer' | 'flash-attn-2';

/**
 * A decode-attention kernel that runs some layers' decode calls without splitting their keys
 * (FrameworkProfile.unsplitDecodeWalk): one program a sequence and query head walks all the keys it attends, one tile
 * after another, so a step of few sequences leaves most SMs idle however few bytes it reads (time/decode-attention.ts
 * unsplitWalkSeconds). `family`: the engine's decode-attention family it describes (FrameworkProfile.decodeAttention),
 * on the GPUs and models where the engine runs that family. `blockM`: the program's query tile rows, whose tensor-core
 * products each key costs whatever the step's query rows. `smEfficiency`: the share of one SM's dense 16-bit peak a
 * walking program's products sustain (its tile loads and online softmax between them). `unsplit`: whether a layer's
 * call takes the unsplit path, from its sliding window and its query and K/V heads.
 */
export interface UnsplitDecodeWalk {
  family: DecodeAttentionFamily;
  blockM: number;
  smEfficiency: number;
  unsplit: (layer: { slidingWindow: number | null; heads: number; kvHeads: number }) => boolean;
}
