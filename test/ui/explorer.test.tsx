import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { render } from 'ink-testing-library';
import { Explorer } from '../../src/ui/tui/Explorer.js';
import { CompareApp } from '../../src/ui/tui/CompareApp.js';
import { exportTo } from '../../src/commands/explore-run.js';
import type { PlanResult } from '../../src/core/plan/index.js';
import type { Scenario } from '../../src/schema/scenario.js';
import { fakeResult, scenario } from './fixtures.js';

/** The re-plan's measured milliseconds depend on the machine's load: masked in snapshots. */
const masked = (frame: string): string =>
  frame.replace(/re-planned in \d+ ms/, 're-planned in … ms');

const strip = (s: string | undefined): string =>
  // eslint-disable-next-line no-control-regex
  (s ?? '').replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '').replace(/ +$/gm, '');
const tick = (ms = 20) => new Promise((r) => setTimeout(r, ms));
const dirs: string[] = [];
afterAll(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function mount(
  opts: {
    n?: number;
    height?: number;
    replan?: (s: Scenario) => PlanResult;
    exportTo?: (p: string, r: PlanResult) => string;
  } = {},
) {
  // Keys and frames are counted through the explorer's own hooks, so a press waits for its key to land and be drawn
  // however loaded the machine is, not for a fixed delay.
  let keys = 0;
  let drawn = 0;
  const ui = render(
    <Explorer
      file="t.yaml"
      scenario={scenario}
      result={fakeResult(opts.n ?? 40)}
      width={100}
      height={opts.height ?? 30}
      replan={opts.replan ?? (() => fakeResult(3))}
      exportTo={opts.exportTo ?? (() => 'unused')}
      debounceMs={0}
      onKey={() => void keys++}
      onDrawn={() => void drawn++}
    />,
  );
  const press = async (...typed: string[]) => {
    for (const k of typed) {
      const keysBefore = keys;
      ui.stdin.write(k);
      await vi.waitFor(() => expect(keys).toBeGreaterThan(keysBefore), {
        timeout: 60_000,
        interval: 5,
      });
      // A key that changes nothing draws nothing: wait for its frame, or a moment if none comes.
      const drawnBefore = drawn;
      for (let i = 0; i < 20 && drawn === drawnBefore; i++) await tick(10);
      await tick();
    }
  };
  return { ...ui, press, frame: () => strip(ui.lastFrame()) };
}

describe('Explorer', () => {
  it('reports each key as it arrives and each frame once drawn (the planner pauses its workers between)', async () => {
    const events: string[] = [];
    let frame = (): string => '';
    const ui = render(
      <Explorer
        file="t.yaml"
        scenario={scenario}
        result={fakeResult(40)}
        width={100}
        height={30}
        replan={() => fakeResult(3)}
        exportTo={() => 'unused'}
        onKey={() => void events.push('key')}
        onDrawn={() => void events.push(`drawn ${/❯ +2 /.test(frame()) ? 2 : 1}`)}
      />,
    );
    frame = () => strip(ui.lastFrame());
    await tick();
    events.length = 0;
    ui.stdin.write('j');
    await tick();
    // The frame is already out when onDrawn runs: it shows the selection on plan 2.
    expect(events).toEqual(['key', 'drawn 2']);
    ui.unmount();
  });

  it('shows the ranked table window and the detail pane of the first plan', async () => {
    const ui = mount();
    await tick();
    expect(ui.frame()).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 distinct plans · 1/40 · by planner rank ▲
           # hardware       technique               wt   opt   eng     PL   mem  time   cost    W    ×f P
      ❯    1 1× a100-80gb   qlora, ckpt selective,… nf4  adamw hf    450W 16/80  5.5h  $0.25  750 2.75× *
           2 1× rtx-4090    full, ckpt selective, … bf16 adamw hf    450W 16/24  3.5h  $0.50  800 1.75×
           3 1× a100-80gb   lora, ckpt selective, … bf16 adamw hf    450W 16/80  7.0h  $0.75  700 3.50×
           4 1× rtx-4090    qlora, ckpt selective,… nf4  adw8  hf    450W 16/24  5.0h  $1.00  750 2.50×
           5 1× a100-80gb   full, ckpt selective, … bf16 adamw hf    450W 16/80  3.0h  $1.25  800 1.50×
           6 1× rtx-4090    lora, ckpt selective, … bf16 adamw hf    450W 16/24  6.5h  $1.50  700 3.25× *
           7 1× a100-80gb   qlora, ckpt selective,… nf4  adamw hf    450W 16/80  4.5h  $1.75  750 2.25×
           8 1× rtx-4090    full, ckpt selective, … bf16 adw8  hf    450W 16/24  2.5h  $2.00  800 1.25×
           9 1× a100-80gb   lora, ckpt selective, … bf16 adamw hf    450W 16/80  6.0h  $2.25  700 3.00×
          10 1× rtx-4090    qlora, ckpt selective,… nf4  adamw hf    450W 16/24  4.0h  $2.50  750 2.00×
      wt=weights opt=optimizer eng=engine PL=power limit W=wall watts ×f=x fastest P=Pareto
      ▸ #1 hf-trainer, nf4 weights, adamw, 450 W limit, qlora, ckpt selective, flash, mb 1×16
      ┌──────────────────────────────────────────────────────────────────────────────────────────────────┐
      │#1 qlora/bf16/adamw/mb1/owned:a100-80gbx1#1  (Pareto front)                                       │
      │16.0 GiB of 80.0 GiB per GPU, 64.0 GiB free (peak: star…  techniques · x fastest 2.75×; step time…│
      │██████▞▞▞▚▪············································│  ×1.05 selective recomputation           │
      │host RAM per node 26.0 GiB                                pruned around it                        │
      │█ weights 8.0 GiB  ▓ adapters 0.1 GiB                     20,088 out of GPU memory                │
      │▒ gradients 0.1 GiB  ░ optimizer 0.4 GiB                  12 circuits cannot carry the wall power │
      │power                                                                                             │
      │wall 750 W, GPUs 450 W                                                                            │
      │us-120v-15a#1 ██████████········· 750/1,440 W                                                     │
      │time and cost                                                                                     │
      │5.5 h at 999 tok/s; $0.25 (energy $0.25)                                                          │
      └──────────────────────────────────────────────────────────────────────────────────────────────────┘
      ↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c com…"
    `);
    ui.unmount();
  });

  it('moves with j/k and arrows, pages, and jumps to the end', async () => {
    const ui = mount();
    await ui.press('j', 'j', '\u001b[B', 'k');
    expect(
      ui
        .frame()
        .split('\n')
        .find((l) => l.startsWith('❯')),
    ).toMatch(/^❯\s+3 /);
    await ui.press('\u001b[6~');
    expect(ui.frame().split('\n')[0]).toContain('· 13/40 ·'); // a page is the 10 rows a 100×30 table shows
    await ui.press('\u001b[F');
    expect(ui.frame().split('\n')[0]).toContain('· 40/40 ·');
    ui.unmount();
  });

  it('draws only the visible window of 5,000 plans', async () => {
    const ui = mount({ n: 5000, height: 30 });
    await ui.press('\u001b[F', '2');
    const lines = ui.frame().split('\n');
    expect(lines[0]).toContain('5,000 distinct plans · 4,545/5,000 · by x fastest ▲'); // plan 5000 stays selected
    expect(lines.find((l) => l.startsWith('❯'))).toMatch(/^❯ 5000 /);
    expect(lines.filter((l) => /^[❯ ] +\d+ 1×/.test(l))).toHaveLength(10);
    ui.unmount();
  });

  it('sorts by time and filters by method and the Pareto front', async () => {
    const ui = mount({ n: 12 });
    await ui.press('4', 'm', 'p');
    expect(ui.frame()).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 1 of 12 distinct plans · 1/1 · by time ▲ · method=full, Pareto front
           # hardware       technique               wt   opt   eng     PL   mem  time   cost    W    ×f P
      ❯   11 1× a100-80gb   full, ckpt selective, … bf16 adamw hf    450W 16/80  2.0h  $2.75  800 1.00× *
      wt=weights opt=optimizer eng=engine PL=power limit W=wall watts ×f=x fastest P=Pareto
      ▸ #11 hf-trainer, bf16 weights, adamw, 450 W limit, full, ckpt selective, flash, mb 1×16
      ┌──────────────────────────────────────────────────────────────────────────────────────────────────┐
      │#11 full/bf16/adamw/mb1/owned:a100-80gbx1#11  (Pareto front)                                      │
      │16.0 GiB of 80.0 GiB per GPU, 64.0 GiB free (peak: star…  techniques · x fastest 1.00×; step time…│
      │██████▞▞▞▚▪············································│  ×1.05 selective recomputation (without …│
      │host RAM per node 26.0 GiB                                pruned around it                        │
      │█ weights 8.0 GiB  ▓ adapters 0.1 GiB                     20,088 out of GPU memory                │
      │▒ gradients 0.1 GiB  ░ optimizer 0.4 GiB                  12 circuits cannot carry the wall power │
      │power                                                                                             │
      │wall 800 W, GPUs 450 W                                                                            │
      │us-120v-15a#1 ███████████········ 800/1,440 W                                                     │
      │time and cost                                                                                     │
      │2.0 h at 989 tok/s; $2.75 (energy $2.75)                                                          │
      └──────────────────────────────────────────────────────────────────────────────────────────────────┘
      ↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c com…"
    `);
    ui.unmount();
  });

  it('hides the detail pane with Enter and searches with /', async () => {
    const ui = mount({ n: 12, height: 16 });
    await ui.press('\r', '/', 'a', '1', '0', '0');
    expect(ui.frame()).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 6 of 12 distinct plans · 1/6 · by planner rank ▲ · /a100
           # hardware       technique               wt   opt   eng     PL   mem  time   cost    W    ×f P
      ❯    1 1× a100-80gb   qlora, ckpt selective,… nf4  adamw hf    450W 16/80  5.5h  $0.25  750 2.75× *
           3 1× a100-80gb   lora, ckpt selective, … bf16 adamw hf    450W 16/80  7.0h  $0.75  700 3.50×
           5 1× a100-80gb   full, ckpt selective, … bf16 adamw hf    450W 16/80  3.0h  $1.25  800 1.50×
           7 1× a100-80gb   qlora, ckpt selective,… nf4  adamw hf    450W 16/80  4.5h  $1.75  750 2.25×
           9 1× a100-80gb   lora, ckpt selective, … bf16 adamw hf    450W 16/80  6.0h  $2.25  700 3.00×
          11 1× a100-80gb   full, ckpt selective, … bf16 adamw hf    450W 16/80  2.0h  $2.75  800 1.00× *
      wt=weights opt=optimizer eng=engine PL=power limit W=wall watts ×f=x fastest P=Pareto
      ▸ #1 hf-trainer, nf4 weights, adamw, 450 W limit, qlora, ckpt selective, flash, mb 1×16
      search: a100▏ Enter keep · Esc clear
      ↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c com…"
    `);
    ui.unmount();
  });

  it('edits a knob and re-plans', async () => {
    const seen: Scenario[] = [];
    const ui = mount({ n: 5, replan: (s) => (seen.push(s), fakeResult(2, 'Edited')) });
    await ui.press('i', 'j', 'j', '\u001b[C');
    // The re-plan runs after the edit's debounce: wait for it and its frame, not a fixed delay.
    await vi.waitFor(() => expect(ui.frame()).toContain('re-planned in'), { timeout: 60_000 });
    expect(seen.map((s) => s.hardware.owned[0]?.count)).toEqual([2]);
    expect(masked(ui.frame())).toMatchInlineSnapshot(`
      "Edited (edited: 2× rtx-4090) · llama-2-13b · 2 distinct plans · 1/2 · by planner rank ▲
           # hardware       technique               wt   opt   eng     PL   mem  time   cost    W    ×f P
      ❯    1 1× a100-80gb   qlora, ckpt selective,… nf4  adamw hf    450W 16/80  5.5h  $0.25  750 2.75× *
           2 1× rtx-4090    full, ckpt selective, … bf16 adamw hf    450W 16/24  3.5h  $0.50  800 1.75×
      wt=weights opt=optimizer eng=engine PL=power limit W=wall watts ×f=x fastest P=Pareto
      ▸ #1 hf-trainer, nf4 weights, adamw, 450 W limit, qlora, ckpt selective, flash, mb 1×16
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ edit scenario (↑↓ knob, ←→ step, Enter type, Esc back)                                           │
      │   model             llama-2-13b                                                                  │
      │   GPU               rtx-4090                                                                     │
      │ ❯ GPU count (max)   2                                                                            │
      │   methods           full,lora,qlora                                                              │
      │   sequence length   2048                                                                         │
      │   micro-batch       any                                                                          │
      │   budget (USD)      none                                                                         │
      │   circuits          us-120v-15a                                                                  │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      re-planned in … ms: 2 feasible configurations → 2 distinct plans"
    `);
    ui.unmount();
  });

  it('shows every key in the help overlay', async () => {
    const ui = mount({ height: 40 });
    await ui.press('?');
    expect(ui.frame()).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 distinct plans · 1/40 · by planner rank ▲
      ╭──────────────────────────────────────────────────────────────────────────────────────────────────╮
      │ keys (? or Esc closes)                                                                           │
      │ move                                                                                             │
      │   ↑ ↓  k j          previous / next plan                                                         │
      │   PgUp PgDn  ^u ^d  page up / down                                                               │
      │   Home End          first / last plan                                                            │
      │ sort (again: reverse)                                                                            │
      │   1                 cost                                                                         │
      │   2                 x fastest                                                                    │
      │   3                 wall power                                                                   │
      │   4                 time                                                                         │
      │   5                 memory headroom                                                              │
      │   0                 planner rank                                                                 │
      │ filter                                                                                           │
      │   m g o             cycle method / GPU type / optimizer                                          │
      │   f                 fits even if the estimate is low by its p90 error                            │
      │   p                 Pareto front only                                                            │
      │   /                 search plans (Enter keeps, Esc clears)                                       │
      │   x                 clear filters and search                                                     │
      │ views                                                                                            │
      │   Enter d           detail pane on / off                                                         │
      │   i                 edit scenario knobs (re-plans live)                                          │
      │   b                 pin this scenario for comparison                                             │
      │   c                 compare pinned scenarios side by side                                        │
      │   e                 export plans (json / csv / md / svg)                                         │
      │   l                 write the selected plan's launch folder (launch-<rank>)                      │
      │   ?                 this help (↑↓ PgUp PgDn space scroll it)                                     │
      │   q Esc             quit (Esc closes a prompt first); ^c quits from anywhere (exit 130)          │
      │ editing knobs (i)                                                                                │
      │   ↑ ↓               choose a knob                                                                │
      │   ← →               step it (count ±1; sequence, micro-batch, budget ÷2 ×2)                      │
      │   Enter             type a value, Enter again to apply                                           │
      │   ^u                clear a prompt (search, value, export path)                                  │
      ╰──────────────────────────────────────────────────────────────────────────────────────────────────╯
      ↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c com…"
    `);
    ui.unmount();
  });

  it('exports the visible plans to the path confirmed in the prompt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-tui-'));
    dirs.push(dir);
    // A relative path (the suggested test-scenario-plans.json) lands in the temp dir, never in the repo.
    const ui = mount({ n: 6, exportTo: (p, r) => exportTo(resolve(dir, p), r) });
    await ui.press('m', 'e');
    expect(ui.frame().split('\n').at(-2)).toBe(
      'export to: test-scenario-plans.json▏ Tab format · Enter write · Esc cancel',
    );
    const path = join(dir, 'out.csv');
    // Clear the suggested name (^u), type the path, confirm.
    await ui.press('\u0015', path, '\r');
    // The export is written asynchronously: wait for its status line (at most 2 s on a busy machine).
    while (ui.frame().split('\n').at(-1) !== `wrote ${path}`) await tick();
    expect(ui.frame().split('\n').at(-1)).toBe(`wrote ${path}`);
    const csv = readFileSync(path, 'utf8').trim().split('\n');
    expect(csv).toHaveLength(3); // header + the 2 'full' plans of 6
    expect(csv[1]).toMatch(/^2,full\//);
    ui.unmount();
  });

  it('pins the scenario and compares it with the edited one', async () => {
    const ui = mount({ n: 5, replan: () => fakeResult(2, 'Edited') });
    await ui.press('b', 'i', 'j', 'j', '\u001b[C');
    await vi.waitFor(() => expect(ui.frame()).toContain('re-planned in'), { timeout: 60_000 });
    await ui.press('\u001b', 'c');
    await vi.waitFor(() => expect(ui.frame()).toContain('compare ≠ differs'), { timeout: 60_000 });
    expect(masked(ui.frame())).toMatchInlineSnapshot(`
      "Edited (edited: 2× rtx-4090) · llama-2-13b · 2 distinct plans · 1/2 · by planner rank ▲
      compare ≠ differs   Test scenario                          Edited (current)
        memory            ████▞▞▪·····························│  ████▞▞▪·····························│
        model             llama-2-13b                            llama-2-13b
        dataset tokens    10,000,000                             10,000,000
        global batch      16 × 2,048 tokens                      16 × 2,048 tokens
        fits              yes                                    yes
        best hardware     1× a100-80gb (owned)                   1× a100-80gb (owned)
        technique         qlora nf4 q,v, adamw, ckpt selective…  qlora nf4 q,v, adamw, ckpt selective…
        engine            hf-trainer                             hf-trainer
        weights           nf4                                    nf4
        optimizer         adamw                                  adamw
        power limit       450 W                                  450 W
        GPU memory        16.0 GiB / 80.0 GiB                    16.0 GiB / 80.0 GiB
          weights         8.0 GiB                                8.0 GiB
          adapters        0.1 GiB                                0.1 GiB
          gradients       0.1 GiB                                0.1 GiB
          optimizer       0.4 GiB                                0.4 GiB
          activations     5.0 GiB                                5.0 GiB
          logits          1.0 GiB                                1.0 GiB
          KV cache        —                                      —
          overhead        1.4 GiB                                1.4 GiB
        time              5.5 h                                  5.5 h
        cost              $0.25                                  $0.25
        wall power        750 W                                  750 W
        tokens/s          999                                    999
        x fastest         2.75×                                  2.75×
      ≠ feasible → plans  5 → 5                                  2 → 2
        runner-up         1× rtx-4090 (owned), $0.50             1× rtx-4090 (owned), $0.50
      re-planned in … ms: 2 feasible configurations → 2 distinct plans"
    `);
    ui.unmount();
  });
});

describe('CompareApp', () => {
  it('puts the best plans of two scenarios side by side', () => {
    const ui = render(
      <CompareApp
        snapshots={[
          { name: 'A', result: fakeResult(3, 'A') },
          { name: 'B', result: fakeResult(0, 'B') },
        ]}
        width={100}
      />,
    );
    expect(strip(ui.lastFrame())).toMatchInlineSnapshot(`
      "compare ≠ differs   A                                      B
        memory            ████▞▞▪·····························│  │
        model             llama-2-13b                            llama-2-13b
        dataset tokens    —                                      —
        global batch      —                                      —
      ≠ fits              yes                                    no
      ≠ best hardware     1× a100-80gb (owned)                   —
      ≠ technique         qlora nf4 q,v, adamw, ckpt selective…  —
      ≠ engine            hf-trainer                             —
      ≠ weights           nf4                                    —
      ≠ optimizer         adamw                                  —
      ≠ power limit       450 W                                  —
      ≠ GPU memory        16.0 GiB / 80.0 GiB                    —
      ≠   weights         8.0 GiB                                —
      ≠   adapters        0.1 GiB                                —
      ≠   gradients       0.1 GiB                                —
      ≠   optimizer       0.4 GiB                                —
      ≠   activations     5.0 GiB                                —
      ≠   logits          1.0 GiB                                —
          KV cache        —                                      —
      ≠   overhead        1.4 GiB                                —
      ≠ time              5.5 h                                  —
      ≠ cost              $0.25                                  —
      ≠ wall power        750 W                                  —
      ≠ tokens/s          999                                    —
      ≠ x fastest         2.75×                                  —
      ≠ feasible → plans  3 → 3                                  0 → 0
      ≠ runner-up         1× rtx-4090 (owned), $0.50             —
      q quit"
    `);
    ui.unmount();
  });
});

describe('compare', () => {
  it('marks each row that differs and tells two scenarios of one name apart', () => {
    const frame = strip(
      render(
        <CompareApp
          snapshots={[
            { name: 'A', result: fakeResult(3, 'A') },
            { name: 'A', result: fakeResult(0, 'A') },
          ]}
          width={100}
        />,
      ).lastFrame(),
    );
    const lines = frame.split('\n');
    expect(lines[0]).toMatch(/^compare ≠ differs +A \(1\) +A \(2\)$/);
    expect(lines.find((l) => l.includes(' model '))).toMatch(/^ {2}model/); // same model: no mark
    for (const label of ['fits', 'engine', 'weights', 'optimizer', 'power limit', 'cost'])
      expect(lines.find((l) => l.slice(2).startsWith(label))).toMatch(/^≠ /);
  });
});

describe('quitting', () => {
  it('hands back a one-screen summary of the selected plan', async () => {
    let got: [number, string] | null = null;
    const ui = render(
      <Explorer
        file="t.yaml"
        scenario={scenario}
        result={fakeResult(40)}
        width={80}
        height={24}
        replan={() => fakeResult(3)}
        exportTo={() => 'unused'}
        onQuit={(code, summary) => (got = [code, summary])}
      />,
    );
    await tick();
    for (const k of ['j', 'j', 'j', 'q']) {
      ui.stdin.write(k);
      await tick();
    }
    // A loaded machine may take longer than a tick to handle the keys: wait for the quit itself.
    await vi.waitFor(() => expect(got).not.toBeNull(), { timeout: 120_000 });
    expect(got![0]).toBe(0);
    expect(got![1]).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · plan #4 of 40 distinct plans (selected when you quit)
        hardware     1× rtx-4090 (owned)
        engine       hf-trainer
        weights      nf4
        optimizer    adamw-8bit
        power limit  450 W
        technique    qlora, ckpt selective, flash, mb 1×16
        memory       16.0 GiB of 24.0 GiB per GPU, 8.0 GiB free (peak: start of backward)
        time         5.0 h
        cost         $1.00
        launch it:   vramplan launch t.yaml --plan 4
      "
    `);
    expect(got![1].split('\n').length).toBeLessThanOrEqual(20);
    ui.unmount();
  });
});
