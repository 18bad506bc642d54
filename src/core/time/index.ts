/**
 * The time model: seconds per training step and decode tokens/s, phase by phase. Each phase is timed at
 * its real limit (FLOPs at an achievable rate for the GPU, dtype and matmul shape, or bytes at memory /
 * link / host bandwidth, whichever is larger) plus fixed per-kernel and per-step overheads, and
 * communication is hidden behind compute where the engine overlaps it. `estimate` and `plan` both call
 * `trainWork` + `trainStep` (or `decodeStep`): one model, two callers.
 *
 * Pure: no I/O. Constants cite their source in one line; "assumed" marks engineering judgement.
 */
export {
  defaultInterconnect,
  defaultQuantFormat,
  gpuRates,
  nvSwitched,
  pcieGBps,
  powerKeep,
} from './hardware.js';
export type { GpuRates } from './hardware.js';
export {
  DECODE_PHASES,
  TRAIN_PHASES,
  modelFacts,
  textOnlyArch,
  weightBytes,
} from './model-facts.js';
export type { Bound, DecodePhase, ModelFacts, TrainPhase } from './model-facts.js';
export { trainWork } from './train-work.js';
export type { MoeDispatch, TrainWork } from './train-work.js';
export { trainStep } from './train-step.js';
export type { StepTime } from './train-step.js';
export { decodeStep } from './decode.js';
export { servingTime, staticBatchSeconds } from './serving-request.js';
export type { DecodeTime } from './decode.js';
export { estimateTime, servingLatency } from './estimate-time.js';
export type { TimeResult } from './estimate-time.js';
export {
  DEFAULT_INTER_NODE_GBPS,
  QUANT_FORMATS,
  QUANT_FORMATS_FOR,
  defaultTimeOptions,
  type Interconnect,
  type KernelName,
  type QuantFormat,
  type TimeOptions,
} from '../../schema/time.js';
