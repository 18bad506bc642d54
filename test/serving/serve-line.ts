// Parse the server commands of a generated serve.sh back into flags (the test side of the parse-back checks).

/** Every server command of serve.sh (vllm serve, sglang.launch_server, llama-server) as its flag → value map. */
export function serveCommands(sh: string): Record<string, string>[] {
  const joined = sh.replace(/\\\n\s*/g, ' ');
  const out: Record<string, string>[] = [];
  for (const line of joined.split('\n')) {
    if (line.startsWith('#') || !/vllm serve|sglang\.launch_server|llama-server /.test(line))
      continue;
    const words = line.replace(/ &$/, '').trim().split(/\s+/);
    const flags: Record<string, string> = {};
    for (let i = 0; i < words.length; i++) {
      const w = words[i]!;
      if (!/^--?[a-z]/.test(w)) continue;
      const next = words[i + 1];
      if (next !== undefined && !/^--?[a-z]/.test(next)) {
        flags[w] = next.replace(/^"|"$/g, '');
        i++;
      } else flags[w] = 'true';
    }
    out.push(flags);
  }
  return out;
}

/** The MODEL default serve.sh sets (`MODEL=${MODEL:-ref}`). */
export const modelOf = (sh: string): string | undefined =>
  /^MODEL=\$\{MODEL:-'?([^}']+)'?\}$/m.exec(sh)?.[1];
