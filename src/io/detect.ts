/** Detect local NVIDIA GPUs through nvidia-smi; no nvidia-smi (or any failure) means no GPUs. */
import { execFile } from 'node:child_process';
import {
  matchDetected,
  NVIDIA_SMI_ARGS,
  parseNvidiaSmiCsv,
  type DetectedGpu,
} from '../core/hardware/index.js';
import type { Gpu } from '../schema/gpu.js';

export interface DetectOptions {
  /** Catalog to match names against; without it every gpuId is null. */
  readonly gpus?: readonly Gpu[];
  /** Executable and arguments (tests substitute a fake). */
  readonly command?: string;
  readonly args?: readonly string[];
  /** nvidia-smi can hang on a wedged driver; give up after this long. */
  readonly timeoutMs?: number;
}

/** Run nvidia-smi and return the GPUs it lists, matched to catalog ids; [] when absent, failing or slow. */
export function detectGpus(opts: DetectOptions = {}): Promise<DetectedGpu[]> {
  const command = opts.command ?? 'nvidia-smi';
  const args = [...(opts.args ?? NVIDIA_SMI_ARGS)];
  return new Promise((resolve) => {
    execFile(
      command,
      args,
      { timeout: opts.timeoutMs ?? 3000, encoding: 'utf8', windowsHide: true },
      (error, stdout) => {
        if (error) return resolve([]);
        resolve(matchDetected(parseNvidiaSmiCsv(stdout), opts.gpus ?? []));
      },
    );
  });
}
