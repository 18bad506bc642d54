/**
 * Training logs read back: each engine's own memory and speed lines (torchtune's metric logger, torchtitan's
 * step line, LitGPT's iteration lines, the Hugging Face Trainer's final metrics), and lines that say a kernel
 * fell back to a slower path. Pure: text in, figures out.
 */

const GiB = 1024 ** 3;
const GB = 1e9;

export type LogFormat = 'torchtune' | 'torchtitan' | 'litgpt' | 'hf-trainer';

/** What a training log says about one rank (the figures it does not carry are null). */
export interface TrainLogFigures {
  format: LogFormat | null;
  /** torch.cuda.max_memory_allocated, bytes (the largest the log shows). */
  allocatedBytes: number | null;
  /** torch.cuda.max_memory_reserved, bytes. */
  reservedBytes: number | null;
  /** Seconds per optimizer step (median of the steps the log times). */
  stepSeconds: number | null;
  /** Training tokens per second per GPU, from the engine's own counter (median). */
  tokensPerSecondPerGpu: number | null;
  /** Steps the figures come from. */
  steps: number;
  /** Lines that report a kernel falling back to a slower path (first few). */
  fallbacks: string[];
}

const median = (xs: readonly number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const max = (xs: readonly number[]): number | null => (xs.length ? Math.max(...xs) : null);
const num = (s: string): number => Number(s.replace(/,/g, ''));

/**
 * torchtune's metric logger line (DiskLogger / StdoutLogger: "Step N | key:value ..."). With
 * log_peak_memory_stats, peak_memory_alloc / _reserved are torch.cuda.max_memory_allocated / _reserved in GiB
 * (torchtune/training/memory.py get_memory_stats at v0.6.1: bytes / 1024**3); tokens_per_second_per_gpu is its
 * own counter (recipes/lora_finetune_single_device.py at v0.6.1); the line is metric_logging.py's DiskLogger format.
 */
function torchtune(lines: readonly string[]): Partial<TrainLogFigures> | null {
  const alloc: number[] = [];
  const reserved: number[] = [];
  const tps: number[] = [];
  let steps = 0;
  for (const line of lines) {
    const m = /^Step \d+ \|(.*)$/.exec(line.trim());
    if (!m) continue;
    steps++;
    const kv = Object.fromEntries(
      [...m[1]!.matchAll(/([a-z_]+):([-\d.e+]+)/g)].map((x) => [x[1]!, Number(x[2])]),
    );
    if (kv.peak_memory_alloc !== undefined) alloc.push(kv.peak_memory_alloc * GiB);
    if (kv.peak_memory_reserved !== undefined) reserved.push(kv.peak_memory_reserved * GiB);
    if (kv.tokens_per_second_per_gpu !== undefined) tps.push(kv.tokens_per_second_per_gpu);
  }
  if (steps === 0) return null;
  return {
    format: 'torchtune',
    allocatedBytes: max(alloc),
    reservedBytes: max(reserved),
    tokensPerSecondPerGpu: median(tps),
    steps,
  };
}

/**
 * torchtitan's step line ("step: N  loss: ...  memory: 66.91GiB(37.51%)  tps: 10,050 ..."): memory is the
 * peak reserved memory in GiB ("reserved_bytes.all.peak" / 1024**3) and tps the tokens per second per device
 * (torchtitan/components/metrics.py, DeviceMemoryMonitor and MetricsProcessor.log, at v0.2.2 = 73a0e697 and at
 * b5bcd76c, August 2026). Every rank may print it; the largest memory and the median tps are kept. The first
 * step (compilation, warm-up) is left out of tps.
 */
function torchtitan(lines: readonly string[]): Partial<TrainLogFigures> | null {
  const reserved: number[] = [];
  const tps: number[] = [];
  const stepsSeen = new Set<number>();
  for (const line of lines) {
    const m = /step:\s*(\d+)\s+loss:.*?memory:\s*([\d.]+)\s*GiB.*?tps:\s*([\d,]+)/.exec(line);
    if (!m) continue;
    const step = Number(m[1]);
    stepsSeen.add(step);
    reserved.push(Number(m[2]) * GiB);
    if (step > 1) tps.push(num(m[3]!));
  }
  if (stepsSeen.size === 0) return null;
  return {
    format: 'torchtitan',
    reservedBytes: max(reserved),
    tokensPerSecondPerGpu: median(tps),
    steps: stepsSeen.size,
  };
}

/**
 * LitGPT's iteration lines ("iter 100 step 50: loss 3.7451, iter time: 187.97ms" of older releases;
 * "Epoch 1 | iter 1 step 1 | loss train: ..., val: n/a | iter time: 123.45 ms (step)": litgpt/finetune/lora.py
 * at v0.5.13) and its memory line: the closing report's "- Memory Used : X GB" (create_finetuning_performance_report
 * in litgpt/utils.py at v0.5.13) or the older scripts' "Memory used: X GB", both torch.cuda.max_memory_allocated()
 * / 1e9. A step's time is the sum of its iterations' times (gradient accumulation); the first and last step are
 * left out.
 */
function litgpt(lines: readonly string[]): Partial<TrainLogFigures> | null {
  const perStep = new Map<number, number>();
  let memory: number | null = null;
  for (const line of lines) {
    const it = /iter \d+ step (\d+)\b.*?iter time:\s*([\d.]+)\s*ms/.exec(line);
    if (it) {
      const step = Number(it[1]);
      perStep.set(step, (perStep.get(step) ?? 0) + Number(it[2]) / 1000);
      continue;
    }
    const mem = /Memory [Uu]sed\s*:\s*([\d.]+)\s*GB/.exec(line);
    if (mem) memory = Number(mem[1]) * GB;
  }
  if (perStep.size === 0 && memory === null) return null;
  const steps = [...perStep.keys()].sort((a, b) => a - b);
  // The first and the last step may be partial (the log starts or ends mid-accumulation).
  const whole = steps.length > 2 ? steps.slice(1, -1) : steps;
  return {
    format: 'litgpt',
    allocatedBytes: memory,
    stepSeconds: median(whole.map((s) => perStep.get(s)!)),
    steps: perStep.size,
  };
}

/**
 * The Hugging Face Trainer's closing metrics dict ("{'train_runtime': ..., 'train_steps_per_second': ...}",
 * transformers trainer_utils.speed_metrics): seconds per optimizer step = 1 / train_steps_per_second (the run's
 * mean, warm-up included).
 */
function hfTrainer(lines: readonly string[]): Partial<TrainLogFigures> | null {
  for (const line of [...lines].reverse()) {
    const m = /['"]train_steps_per_second['"]:\s*([\d.e+-]+)/.exec(line);
    if (m && Number(m[1]) > 0) {
      return { format: 'hf-trainer', stepSeconds: 1 / Number(m[1]), steps: 1 };
    }
  }
  return null;
}

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
  const found = torchtune(lines) ?? torchtitan(lines) ?? litgpt(lines) ?? hfTrainer(lines);
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
