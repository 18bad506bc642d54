/** A ModelLoad from its figures, with the default largest safetensors file (SAFETENSORS_FILE_BYTES). */
import { SAFETENSORS_FILE_BYTES, type ModelLoad } from '../../src/core/memory/host-ram.js';

export const modelLoad = (
  checkpointBytes: number,
  routedExperts = false,
  quantizedBytes = checkpointBytes,
  fileBytes = SAFETENSORS_FILE_BYTES,
): ModelLoad => ({ checkpointBytes, routedExperts, quantizedBytes, fileBytes });
