/** The launch README's "Check the run" section: how to run the probe for this folder's engine, then check. */
import type { LaunchBundle } from '../core/launch/index.js';

/** The ports check.sh asks (one server per replica), or null for a folder without servers. */
const portsOf = (bundle: LaunchBundle): string | null => {
  const check = bundle.files.find((f) => f.path === 'check.sh')?.content;
  return check ? (/for port in ([\d ]+); do/.exec(check)?.[1] ?? null) : null;
};

export function checkReadmeSection(bundle: LaunchBundle): string {
  const has = (p: string) => bundle.files.some((f) => f.path === p);
  const out = ['', '## Check the run', ''];
  const ports = portsOf(bundle);
  if (ports !== null) {
    out.push(
      '1. `bash serve.sh`, then send your load (or `bash check.sh`).',
      `2. While the load runs: \`python3 vramplan_probe.py serve --ports ${ports} --seconds 120\` scrapes each server's Prometheus \`/metrics\` (time to first token, time per output token, generated tokens) and the GPUs' used memory into \`measured.json\`.`,
    );
  } else {
    const command = has('launch.sh')
      ? 'bash launch.sh'
      : has('torchtune.yaml')
        ? 'tune run <the command in the first line of torchtune.yaml>'
        : has('generate.py')
          ? 'python generate.py'
          : '<your command>';
    out.push(
      `1. \`python3 vramplan_probe.py run -- ${command}\` runs it unchanged, copies its output to \`run.log\` and samples the GPUs' used memory (device peak) into \`measured.json\`.`,
    );
    if (has('train.py') || has('train_unsloth.py'))
      out.push(
        "   The Trainer script's `attach_probe(trainer)` adds each rank's torch allocated and reserved peaks and step time (`measured.rank<N>.json`).",
      );
    if (has('torchtune.yaml'))
      out.push(
        "   torchtune's peaks and tokens/s go to its metric log: add `--log <output_dir>/logs/log_*.txt` to `vramplan check`.",
      );
  }
  out.push(
    `${ports !== null ? '3' : '2'}. \`vramplan check .\` compares the run with this plan (\`vramplan-plan.json\`); \`vramplan check . --case\` writes it as a calibration row.`,
  );
  return `${out.join('\n')}\n`;
}
