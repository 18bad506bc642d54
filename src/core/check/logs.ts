/**
 * Training logs read back: each engine's own memory and speed lines (its registration's `logs` reader:
 * torchtune's metric logger, torchtitan's step line, LitGPT's iteration lines, the Hugging Face Trainer's final
 * metrics), and lines that say a kernel fell back to a slower path. Pure: text in, figures out.
 */
import { engineDefs } from '../engines/store.js';
import type { TrainLogFigures, TrainLogReader } from './readers.js';

export type { LogFormat, TrainLogFigures } from './readers.js';

/** Every registered engine's training log reader, once each (the Hugging Face engines share one), in order. */
const logReaders = (): TrainLogReader[] =>
  [...new Set(engineDefs().flatMap((d) => (d.logs ? [d.logs] : [])))].sort(
    (a, b) => a.order - b.order,
  );

/**
 * Lines that report a slower path than the plan assumed: an attention or fused kernel that is not installed or
 * not supported, and the library falling back (transformers' "... is not available", PyTorch SDPA's
 * "Memory efficient kernel not used because", vLLM's and SGLang's "falling back to ..." warnings).
 */
const FALLBACK =
  /(fall(?:s|ing)? back to|kernel not used because|is not available|not installed|not supported, using|using the slow)/i;

export function fallbackLines(text: string, limit = 3): string[] {
  const found: string[] = [];
  for (const line of text.split(/\r?\n/)) {
    if (FALLBACK.test(line)) {
      found.push(line.trim().slice(0, 200));
      if (found.length >= limit) break;
    }
  }
  return found;
}

/** The figures a training log carries, whichever engine wrote it (the first format that matches). */
export function parseTrainLog(text: string): TrainLogFigures {
  const lines = text.split(/\r?\n/);
  let found: Partial<TrainLogFigures> | null = null;
  for (const r of logReaders()) {
    const figures = r.read(lines);
    if (figures) {
      found = { ...figures, format: r.format };
      break;
    }
  }
  return {
    format: null,
    allocatedBytes: null,
    reservedBytes: null,
    stepSeconds: null,
    tokensPerSecondPerGpu: null,
    steps: 0,
    ...found,
    fallbacks: fallbackLines(text),
  };
}
