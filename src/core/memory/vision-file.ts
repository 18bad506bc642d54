/** A vision tower kept in a file of its own (llama.cpp's mmproj GGUF): what the engine profile says of it, its bytes. */
import type { Arch } from '../model/arch.js';
import { linearBiases, linearWeights } from '../model/params.js';

/**
 * A multimodal checkpoint's vision tower and projector as a file of their own, which the engine loads beside the
 * text model only when images are served (llama.cpp's mmproj GGUF, given by --mmproj): the text model is loaded
 * without them (so a layer split counts its layers only), and with images the tower is held whole on one GPU.
 */
export interface VisionFile {
  /** Bytes a value of the tower's matrices, and of its vectors (norms, biases), as the converter writes them. */
  matrixBytes: number;
  vectorBytes: number;
  /** Images the tower encodes in one graph (its compute buffer is that graph's). */
  imagesAtOnce: number;
}

/**
 * Bytes of the tower's file: its blocks' linears and the parameters outside the blocks (patch and position
 * embeddings, merger, projector: VisionInput.params, taken as matrices) at matrixBytes, its blocks' norms and
 * biases at vectorBytes. 0 for a model without a vision tower.
 */
export function visionFileBytes(arch: Arch, file: VisionFile): number {
  const g = arch.groups.find((x) => x.name === 'vision');
  if (!g || !arch.vision) return 0;
  const matrices = g.count * g.linears.reduce((a, l) => a + linearWeights(l), 0);
  const vectors =
    g.count * (g.linears.reduce((a, l) => a + linearBiases(l), 0) + g.otherParamsPerLayer);
  return (matrices + (arch.vision.params ?? 0)) * file.matrixBytes + vectors * file.vectorBytes;
}
