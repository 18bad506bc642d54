/**
 * `--from` for serving engines: the server commands of a shell text (or a vLLM / SGLang `--config` YAML) to
 * one FromMapping, through the engine's own reader (engines/<engine>/from.ts). Pure.
 */
import { FromError, type FromMapping } from './common.js';
import {
  configArgs,
  parseServeScript,
  type ServeCommand,
  type ServeEngine,
  type ServeScript,
} from './serve-line.js';
import { replicaMapping, type ServeReading } from './serve.js';
import { readVllmCommand, VLLM_FROM_FLAGS } from '../engines/vllm/from.js';
import { readSglangCommand, SGLANG_FROM_FLAGS } from '../engines/sglang/from.js';
import { readLlamaServerCommand, LLAMA_SERVER_FROM_FLAGS } from '../engines/llama-cpp/from.js';

export { parseServeScript, configArgs };
export type { ServeScript, ServeCommand };

const READERS: Record<
  ServeEngine,
  (c: ServeCommand, plan: Readonly<Record<string, string>>) => ServeReading
> = {
  vllm: readVllmCommand,
  sglang: readSglangCommand,
  'llama.cpp': readLlamaServerCommand,
};

const FLAG_NAMES: Record<ServeEngine, readonly string[]> = {
  vllm: Object.values(VLLM_FROM_FLAGS).flatMap((s) => s.names),
  sglang: Object.values(SGLANG_FROM_FLAGS).flatMap((s) => s.names),
  'llama.cpp': Object.values(LLAMA_SERVER_FROM_FLAGS).flatMap((s) => s.names),
};

/** A text holds a server command (so `--from` reads it as a shell script, whatever its name). */
export const hasServeCommand = (text: string): boolean =>
  parseServeScript(text).commands.length > 0;

/** The `--config` file a command names (vLLM and SGLang), or null. */
export function configRefOf(c: ServeCommand): string | null {
  const i = c.args.findIndex((w) => w === '--config' || w.startsWith('--config='));
  if (i < 0 || c.engine === 'llama.cpp') return null;
  const w = c.args[i]!;
  return w.includes('=') ? w.slice(w.indexOf('=') + 1) : (c.args[i + 1] ?? null);
}

/**
 * The command with its `--config` YAML's words spliced in where the engine puts them: after the model
 * positional, before the command line's own flags, so the command line wins (vLLM _pull_args_from_config).
 */
export function withConfig(c: ServeCommand, doc: Record<string, unknown>): ServeCommand {
  const i = c.args.findIndex((w) => w === '--config' || w.startsWith('--config='));
  const rest = [...c.args.slice(0, i), ...c.args.slice(i + (c.args[i]!.includes('=') ? 1 : 2))];
  const head = rest[0] !== undefined && !rest[0].startsWith('-') ? 1 : 0;
  return { ...c, args: [...rest.slice(0, head), ...configArgs(doc), ...rest.slice(head)] };
}

/** The mapping of a script's server commands: the first command's engine; its other commands are replicas. */
export function mapServeScript(script: ServeScript): FromMapping {
  const [first] = script.commands;
  if (!first)
    throw new FromError(
      '(script)',
      'no server command',
      'a line with vllm serve, python -m sglang.launch_server, sglang serve or llama-server',
    );
  const same = script.commands.filter((c) => c.engine === first.engine);
  const readings = same.map((c) => READERS[c.engine](c, script.planFlags));
  const m = replicaMapping(first.engine, readings, FLAG_NAMES[first.engine]);
  if (same.length < script.commands.length)
    m.warnings.push(
      `server commands of other engines than ${first.engine} are not estimated (one engine per --from)`,
    );
  return m;
}

/** A vLLM or SGLang `--config` YAML given alone: the command it configures, mapped. */
export function mapServeConfig(
  doc: Record<string, unknown>,
  engine: 'vllm' | 'sglang',
): FromMapping {
  return mapServeScript({
    commands: [{ engine, args: configArgs(doc), env: {} }],
    vars: {},
    planFlags: {},
  });
}

/** Keys only a vLLM / SGLang server config uses (dashes or underscores, as both parsers take them). */
const VLLM_CONFIG_KEYS = [
  'tensor-parallel-size',
  'max-model-len',
  'gpu-memory-utilization',
  'max-num-seqs',
  'enable-prefix-caching',
];
const SGLANG_CONFIG_KEYS = [
  'model-path',
  'mem-fraction-static',
  'tp-size',
  'context-length',
  'max-running-requests',
  'disable-radix-cache',
];

/** vllm / sglang when the YAML's keys are that server's, else null. */
export function serveConfigFormat(doc: Record<string, unknown>): 'vllm' | 'sglang' | null {
  const keys = Object.keys(doc).map((k) => k.replace(/_/g, '-'));
  if (SGLANG_CONFIG_KEYS.some((k) => keys.includes(k))) return 'sglang';
  if (VLLM_CONFIG_KEYS.some((k) => keys.includes(k))) return 'vllm';
  return null;
}
