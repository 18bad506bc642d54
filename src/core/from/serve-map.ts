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
import { replicaMapping } from './serve.js';
import { serveReaderOf } from '../engines/store.js';

export { parseServeScript, configArgs };
export type { ServeScript, ServeCommand };

/** A text holds a server command (so `--from` reads it as a shell script, whatever its name). */
export const hasServeCommand = (text: string): boolean =>
  parseServeScript(text).commands.length > 0;

/** The `--config` file a command names (vLLM and SGLang), or null. */
export function configRefOf(c: ServeCommand): string | null {
  const i = c.args.findIndex((w) => w === '--config' || w.startsWith('--config='));
  if (i < 0 || !serveReaderOf(c.engine).configFile) return null;
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
      'a line with vllm serve, python -m sglang.launch_server, sglang serve, llama-server or llama-cli',
    );
  const same = script.commands.filter((c) => c.engine === first.engine);
  const reader = serveReaderOf(first.engine);
  const readings = same.map((c) => reader.read(c, script.planFlags));
  const m = replicaMapping(first.engine, readings, reader.flagNames);
  m.warnings.unshift(...script.notes);
  if (same.length < script.commands.length)
    m.warnings.push(
      `server commands of other engines than ${first.engine} are not estimated (one engine per --from)`,
    );
  return m;
}

/** A server's `--config` YAML given alone (vLLM, SGLang): the command it configures, mapped. */
export function mapServeConfig(doc: Record<string, unknown>, engine: ServeEngine): FromMapping {
  return mapServeScript({
    commands: [{ engine, args: configArgs(doc), env: {} }],
    vars: {},
    planFlags: {},
    notes: [],
  });
}

/** A server config's detector: any of `keys` among the document's (dashes or underscores, as the parsers take both). */
export const serveConfigKeys =
  (keys: readonly string[]) =>
  (doc: Record<string, unknown>): boolean =>
    Object.keys(doc).some((k) => keys.includes(k.replace(/_/g, '-')));
