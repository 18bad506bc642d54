/**
 * A TRL training command pasted as shell lines, as TRL's docs and examples print them: `trl <trainer> --key value ...`
 * (trl/cli.py at v1.9.0 runs the trainer's script, whose HfArgumentParser reads ScriptArguments, the trainer's
 * Config and ModelConfig from these flags) and `accelerate launch [options] <script>.py --key value ...` or
 * `python <script>.py ...` (trl/scripts/<trainer>.py, examples/scripts/<trainer>.py). Its arguments are the config
 * document the TRL reader maps (from/hf-args.ts), the trainer the one its subcommand or script names.
 */
import type { CommandConfig } from '../../def.js';
import { logicalLines, shellWords } from '../../../from/serve-line.js';

/** `doc`: the `--key value` pairs (`--flag` alone: true; dashes as underscores, as HfArgumentParser takes both);
 * `trainerPath`: `dpo.py` (trl-objective.ts trainerOfPath); `gpus`: accelerate's `--num_processes`. */
export type TrainCommand = CommandConfig;

const scalar = (v: string): unknown => {
  if (/^(true|false)$/i.test(v)) return v.toLowerCase() === 'true';
  if (/^-?\d+(\.\d+)?(e-?\d+)?$/i.test(v)) return Number(v);
  return v;
};

/**
 * `--key value` / `--key=value` / `--flag` words as a document; a key followed by several words takes them as a list
 * (HfArgumentParser's nargs="+" fields: `--lora_target_modules q_proj v_proj`, trailing commas dropped).
 */
function argsDoc(words: readonly string[]): Record<string, unknown> {
  const doc: Record<string, unknown> = {};
  for (let i = 0; i < words.length; i++) {
    const m = /^--([\w.-]+)(?:=(.*))?$/s.exec(words[i]!);
    if (!m) continue;
    const key = m[1]!.replace(/-/g, '_');
    if (m[2] !== undefined) {
      doc[key] = scalar(m[2]);
      continue;
    }
    const values: string[] = [];
    while (words[i + 1] !== undefined && !words[i + 1]!.startsWith('--'))
      values.push(words[++i]!.replace(/,$/, ''));
    doc[key] = values.length === 0 ? true : values.length === 1 ? scalar(values[0]!) : values;
  }
  return doc;
}

/** accelerate launch's own options, which `trl <trainer>` also takes (docs/source/clis.md at v1.9.0). */
const LAUNCH_KEYS = ['num_processes', 'config_file', 'num_machines', 'mixed_precision'] as const;

/** The index of the training script or `trl` subcommand in `words`, and its trainer name; null when none. */
function entryOf(words: readonly string[]): { at: number; name: string } | null {
  const base = (w: string) => w.split('/').at(-1)!;
  const trl = words.findIndex((w) => base(w) === 'trl');
  if (trl >= 0 && words[trl + 1] && !words[trl + 1]!.startsWith('-'))
    return { at: trl + 1, name: `${words[trl + 1]!}.py` };
  const launcher = words.findIndex((w) =>
    /^(python3?|accelerate|torchrun|deepspeed)$/.test(base(w)),
  );
  if (launcher < 0) return null;
  const script = words.findIndex((w, i) => i > launcher && /\.py$/.test(w));
  return script < 0 ? null : { at: script, name: base(words[script]!) };
}

/** The first TRL training command of `text`, or null. */
export function trainCommandOf(text: string): TrainCommand | null {
  const vars: Record<string, string> = {};
  for (const line of logicalLines(text)) {
    const words = shellWords(line, vars);
    const entry = entryOf(words);
    if (!entry) continue;
    const doc = argsDoc(words.slice(entry.at + 1));
    // A TRL example script run bare (`accelerate launch ... examples/scripts/sft_gemma3.py`) sets its model and
    // config in its own code; any other script needs them on the line to be read as TRL's.
    const bare = !('model_name_or_path' in doc) && !('config' in doc);
    const trlScript = /(^|\/)(examples|trl)\/scripts\/[\w-]+\.py$/.test(words[entry.at]!);
    if (bare && !trlScript) continue;
    const launch = argsDoc(words.slice(0, entry.at));
    for (const k of LAUNCH_KEYS)
      if (k in doc) {
        launch[k] = doc[k];
        delete doc[k];
      }
    const notes: string[] = [];
    if (bare)
      notes.push(
        `${words[entry.at]!}: run without --model_name_or_path, it sets its model and training arguments in its own code, which --from does not read; give --model and the flags it sets`,
      );
    if (typeof launch.config_file === 'string')
      notes.push(
        `accelerate --config_file ${launch.config_file}: not read (give --zero, --offload and --gpus for its sharding)`,
      );
    if (typeof doc.config === 'string') {
      notes.push(`--config ${doc.config}: not read (give --from that file for its keys)`);
      delete doc.config;
    }
    const n = launch.num_processes;
    return {
      doc,
      trainerPath: entry.name,
      ...(typeof n === 'number' && Number.isSafeInteger(n) && n > 1 ? { gpus: n } : {}),
      notes,
    };
  }
  return null;
}
