/**
 * `--from` of a `llama-bench` line (tools/llama-bench/README.md at ggml-org/llama.cpp@08d0baac): the test instance that
 * holds the most GPU memory, as the llama-server line it loads the same way. llama-bench takes comma lists (and
 * repeated flags) for each test parameter and runs every combination; each instance is one sequence in a context of
 * n_prompt + n_gen + n_depth tokens (llama-bench.cpp cmd_params_instance::to_cparams), the prompt tests (-p) with
 * n_gen 0, the generation tests (-n) with n_prompt 0, -pg pp,tg both.
 */
import {
  parseArgs,
  programName,
  switched as b,
  valued as v,
  type FlagSpec,
  type ServeCommand,
} from '../../from/serve-line.js';

const BENCH_FLAGS: Record<string, FlagSpec> = {
  model: v('-m', '--model'),
  hf: v('-hf', '-hfr', '--hf-repo'),
  prompt: v('-p', '--n-prompt'),
  gen: v('-n', '--n-gen'),
  pg: v('-pg'),
  depth: v('-d', '--n-depth'),
  ngl: v('-ngl', '--n-gpu-layers'),
  'n-cpu-moe': v('-ncmoe', '--n-cpu-moe'),
  'cache-type-k': v('-ctk', '--cache-type-k'),
  'cache-type-v': v('-ctv', '--cache-type-v'),
  'flash-attn': v('-fa', '--flash-attn'),
  'split-mode': v('-sm', '--split-mode'),
  'tensor-split': v('-ts', '--tensor-split'),
  'override-tensor': v('-ot', '--override-tensor'),
  // No effect on what the instance holds: repetitions, output, threads, batch sizes of the prompt pass, priority.
  repetitions: v('-r', '--repetitions'),
  output: v('-o', '--output'),
  threads: v('-t', '--threads'),
  batch: v('-b', '--batch-size'),
  ubatch: v('-ub', '--ubatch-size'),
  progress: b('--progress'),
  verbose: b('-v', '--verbose'),
};
/** The test parameters the instance takes, and the llama-server flag each stands for. */
const AS_SERVER: Record<string, string> = {
  'cache-type-k': '-ctk',
  'cache-type-v': '-ctv',
  'flash-attn': '-fa',
  'split-mode': '-sm',
  'tensor-split': '-ts',
};

/** Every value of a test parameter given as comma lists or repeated flags (`-n 16,32`, `-n 16 -n 32`). */
function listOf(args: readonly string[], names: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const w = args[i]!;
    const eq = w.indexOf('=');
    const name = eq > 0 ? w.slice(0, eq) : w;
    if (!names.includes(name)) continue;
    const value = eq > 0 ? w.slice(eq + 1) : args[++i];
    if (value !== undefined) out.push(...value.split(',').filter((x) => x.trim() !== ''));
  }
  return out;
}

/** Integers of a list; `first-last`, `first-last+step` and `first-last*mult` ranges give their largest value. */
const ints = (values: readonly string[]): number[] =>
  values
    .map((x) => {
      const range = /^(-?\d+)-(\d+)([+*]\d+)?$/.exec(x.trim());
      return Number(range ? range[2] : x);
    })
    .filter(Number.isFinite);

/**
 * The llama-server words of the llama-bench instance with the most GPU memory: the first model, the longest context
 * (the largest of -p, -n and -pg's sum, plus the largest -d), the most layers on the GPU (largest -ngl, smallest
 * -ncmoe), the first value of the other lists; `notes` says what was chosen.
 */
export function benchAsServer(args: readonly string[], notes: string[]): string[] {
  const spec = (key: string) => BENCH_FLAGS[key]!.names;
  const models = listOf(args, spec('model'));
  const repos = listOf(args, spec('hf'));
  const prompt = ints(listOf(args, spec('prompt')));
  const gen = ints(listOf(args, spec('gen')));
  // -pg pp,tg (repeatable): the pairs' sums.
  const pg = ints(listOf(args, spec('pg')));
  let pgSum = 0;
  for (let i = 0; i + 1 < pg.length; i += 2) pgSum = Math.max(pgSum, pg[i]! + pg[i + 1]!);
  // Defaults as the README prints them: -p 512, -n 128, -d 0, -ngl -1 (all layers).
  const ctx =
    Math.max(
      prompt.length > 0 ? Math.max(...prompt) : 512,
      gen.length > 0 ? Math.max(...gen) : 128,
      pgSum,
    ) + Math.max(0, ...ints(listOf(args, spec('depth'))));
  const ngl = ints(listOf(args, spec('ngl')));
  const ncmoe = ints(listOf(args, spec('n-cpu-moe')));
  const out: string[] = [];
  const model = models[0];
  if (model !== undefined) out.push('-m', model);
  else if (repos[0] !== undefined) out.push('-hf', repos[0]);
  else out.push('-m', 'models/7B/ggml-model-q4_0.gguf');
  out.push('-c', String(ctx), '-np', '1');
  if (ngl.length > 0) out.push('-ngl', String(Math.max(...ngl)));
  if (ncmoe.length > 0) out.push('-ncmoe', String(Math.min(...ncmoe)));
  for (const [key, flag] of Object.entries(AS_SERVER)) {
    const first = listOf(args, spec(key))[0];
    if (first !== undefined) out.push(flag, first);
  }
  const parsed = parseArgs(args, BENCH_FLAGS);
  const ot = parsed.values.get('override-tensor');
  if (typeof ot === 'string') out.push('-ot', ot);
  if (parsed.unknown.length > 0)
    notes.push(`llama-bench flags not used: ${[...new Set(parsed.unknown)].join(', ')}`);
  notes.push(
    `llama-bench: estimated as the test that holds the most GPU memory (one sequence of ${ctx} tokens${
      models.length + repos.length > 1
        ? `, the first of ${models.length + repos.length} models`
        : ''
    }); each test is one sequence of n_prompt + n_gen + n_depth tokens (tools/llama-bench/llama-bench.cpp)`,
  );
  return out;
}

/** A command starting at a `llama-bench` program word as the llama-server command it stands for; others as they are. */
export const benchAsServerCommand = (c: ServeCommand, notes: string[]): ServeCommand =>
  programName(c.args[0] ?? '') === 'llama-bench'
    ? { ...c, args: benchAsServer(c.args.slice(1), notes) }
    : c;
