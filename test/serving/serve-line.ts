// Parse the server commands of a generated serve.sh back: the `--from` reader's own shell parser
// (src/core/from/serve-line.ts) gives the words, and the reader maps them to contract flags.
import { parseServeScript, mapServeScript } from '../../src/core/from/serve-map.js';
import type { FromFlags } from '../../src/core/from/common.js';

/** Every server command of serve.sh (vllm serve, sglang.launch_server, llama-server) as its flag → value map. */
export function serveCommands(sh: string): Record<string, string>[] {
  return parseServeScript(sh).commands.map((c) => {
    const flags: Record<string, string> = {};
    const words = c.args;
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (!/^--?[a-z]/.test(w)) continue;
      const next = words[i + 1];
      if (next !== undefined && !/^--?[a-z]/.test(next)) {
        flags[w] = next;
        i++;
      } else flags[w] = 'true';
    }
    return flags;
  });
}

/** The MODEL default serve.sh sets (`MODEL=${MODEL:-ref}`). */
export const modelOf = (sh: string): string | undefined => parseServeScript(sh).vars.MODEL;

/** What `vramplan estimate --from serve.sh` reads: the contract flags, the model and the warnings. */
export function readBack(sh: string): {
  flags: FromFlags;
  model: string | null;
  warnings: string[];
} {
  const m = mapServeScript(parseServeScript(sh));
  return { flags: m.flags, model: m.model, warnings: m.warnings };
}
