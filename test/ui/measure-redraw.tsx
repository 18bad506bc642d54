// Measure the explorer's redraw times on a real scenario (not a test): npx tsx test/ui/measure-redraw.tsx [scenario]
import { render } from 'ink-testing-library';
import { Explorer } from '../../src/ui/tui/Explorer.js';
import { planFor, exportTo } from '../../src/commands/explore-run.js';
import { loadScenario } from '../../src/io/load-scenario.js';

const file = process.argv[2] ?? 'scenarios/default.yaml';
const s = loadScenario(file);
const t0 = performance.now();
const result = planFor(s, [], 1000);
console.log(
  `initial plan: ${(performance.now() - t0).toFixed(0)} ms, ${result.plans.length} plans`,
);
const ui = render(
  <Explorer
    file={file}
    scenario={s}
    result={result}
    width={120}
    height={39}
    replan={(x) => planFor(x, [], 1000)}
    exportTo={exportTo}
  />,
);
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const seenAt: number[] = [];
const origWrite = ui.stdout.write;
ui.stdout.write = (f: string) => {
  origWrite(f);
  seenAt[ui.frames.length - 1] = performance.now();
};
async function until(
  pred: (f: string) => boolean,
  from: number,
  start = ui.frames.length,
): Promise<number> {
  const deadline = performance.now() + 10000;
  for (;;) {
    for (let i = start; i < ui.frames.length; i++)
      if (pred(ui.frames[i]!)) return (seenAt[i] ?? performance.now()) - from;
    if (performance.now() > deadline) return NaN;
    await new Promise((r) => setTimeout(r, 1));
  }
}
await sleep(200);
const nav: number[] = [];
for (let i = 0; i < 10; i++) {
  const n = ui.frames.length;
  const t = performance.now();
  ui.stdin.write('j');
  nav.push(await until(() => true, t, n));
}
console.log(`move j: ${nav.map((x) => x.toFixed(1)).join(' ')} ms`);
ui.stdin.write('i');
await sleep(50);
ui.stdin.write('j');
await sleep(50);
ui.stdin.write('j');
await sleep(50);
ui.stdin.write('j');
await sleep(50);
ui.stdin.write('j');
await sleep(50); // sequence length
for (const key of ['\u001b[D', '\u001b[C', '\u001b[D', '\u001b[C']) {
  const t = performance.now();
  const n0 = ui.frames.length;
  ui.stdin.write(key);
  const feedback = await until((f) => f.includes('re-planning'), t, n0);
  const done = await until((f) => f.includes('re-planned in'), t, n0);
  const m = /re-planned in (\d+) ms: (\d+) plans/.exec(ui.lastFrame() ?? '');
  console.log(
    `edit ${key === '\u001b[D' ? 'seq/2' : 'seq*2'}: feedback ${feedback.toFixed(0)} ms, new ranking drawn ${done.toFixed(0)} ms (plan() ${m?.[1]} ms, ${m?.[2]} plans)`,
  );
  await sleep(300);
  ui.stdin.write('\u001b');
  await sleep(50);
  ui.stdin.write('i');
  await sleep(50); // clear status
}
ui.unmount();
process.exit(0);
