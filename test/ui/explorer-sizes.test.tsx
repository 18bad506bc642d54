// The explorer at 60×20, 80×24 and 200×50: every column's title shows in full, the frame is never taller
// than the terminal, and the selected plan's engine, weights, optimizer and power limit are on screen.
import { describe, expect, it } from 'vitest';
import { tableColumns } from '../../src/ui/tui/cells.js';
import { frameAt } from './frame-at.js';

/** Every column title appears whole, in order, on the title line. */
function expectTitles(frame: string, width: number) {
  const titles = frame.split('\n')[1]!;
  let at = 0;
  for (const c of tableColumns(width)) {
    const i = titles.indexOf(c.title, at);
    expect(i, `title '${c.title}' at ${width} columns`).toBeGreaterThanOrEqual(at);
    at = i + c.title.length;
  }
}

/** The selected plan (the first: hf-trainer, nf4 weights, adamw, 450 W) is named on screen. */
function expectSelected(frame: string) {
  for (const s of ['hf-trainer', 'nf4', 'adamw', '450']) expect(frame).toContain(s);
}

function expectFits(frame: string, width: number, height: number) {
  const lines = frame.split('\n');
  expect(lines.length).toBeLessThanOrEqual(height);
  for (const l of lines) expect([...l].length).toBeLessThanOrEqual(width);
}

describe('Explorer sizes', () => {
  it('60×20', async () => {
    const frame = await frameAt(60, 20);
    expectTitles(frame, 60);
    expectSelected(frame);
    expectFits(frame, 60, 20);
    expect(frame).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 distinct plans · 1/40 · by…
           # hardware   tech         wt   opt     PL  time   cost
      ❯    1 1× a100-8… q hf sel 1×… nf4  adamw 450W  5.5h  $0.25
           2 1× rtx-40… f hf sel 1×… bf16 adamw 450W  3.5h  $0.50
           3 1× a100-8… l hf sel 1×… bf16 adamw 450W  7.0h  $0.75
           4 1× rtx-40… q hf sel 1×… nf4  adw8  450W  5.0h  $1.00
           5 1× a100-8… f hf sel 1×… bf16 adamw 450W  3.0h  $1.25
           6 1× rtx-40… l hf sel 1×… bf16 adamw 450W  6.5h  $1.50
           7 1× a100-8… q hf sel 1×… nf4  adamw 450W  4.5h  $1.75
           8 1× rtx-40… f hf sel 1×… bf16 adw8  450W  2.5h  $2.00
           9 1× a100-8… l hf sel 1×… bf16 adamw 450W  6.0h  $2.25
          10 1× rtx-40… q hf sel 1×… nf4  adamw 450W  4.0h  $2.50
          11 1× a100-8… f hf sel 1×… bf16 adamw 450W  2.0h  $2.75
          12 1× rtx-40… l hf sel 1×… bf16 adw8  450W  5.5h  $3.00
          13 1× a100-8… q hf sel 1×… nf4  adamw 450W  3.5h  $3.25
      tech=method engine ckpt mb attention wt=weights opt=optimiz…
      ▸ #1 hf-trainer, nf4 weights, adamw, 450 W limit, qlora, ck…
      ↑↓ move · 1-5 sort · f fits · / search · i edit · e export …"
    `);
  });

  it('80×24', async () => {
    const frame = await frameAt(80, 24);
    expectTitles(frame, 80);
    expectSelected(frame);
    expectFits(frame, 80, 24);
    expect(frame).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 distinct plans · 1/40 · by planner rank ▲
           # hardware   technique    wt   opt   eng     PL   mem  time   cost    ×f P
      ❯    1 1× a100-8… qlora, ckpt… nf4  adamw hf    450W 16/80  5.5h  $0.25 2.75× *
           2 1× rtx-40… full, ckpt … bf16 adamw hf    450W 16/24  3.5h  $0.50 1.75×
           3 1× a100-8… lora, ckpt … bf16 adamw hf    450W 16/80  7.0h  $0.75 3.50×
           4 1× rtx-40… qlora, ckpt… nf4  adw8  hf    450W 16/24  5.0h  $1.00 2.50×
           5 1× a100-8… full, ckpt … bf16 adamw hf    450W 16/80  3.0h  $1.25 1.50×
           6 1× rtx-40… lora, ckpt … bf16 adamw hf    450W 16/24  6.5h  $1.50 3.25× *
           7 1× a100-8… qlora, ckpt… nf4  adamw hf    450W 16/80  4.5h  $1.75 2.25×
           8 1× rtx-40… full, ckpt … bf16 adw8  hf    450W 16/24  2.5h  $2.00 1.25×
           9 1× a100-8… lora, ckpt … bf16 adamw hf    450W 16/80  6.0h  $2.25 3.00×
          10 1× rtx-40… qlora, ckpt… nf4  adamw hf    450W 16/24  4.0h  $2.50 2.00×
          11 1× a100-8… full, ckpt … bf16 adamw hf    450W 16/80  2.0h  $2.75 1.00× *
          12 1× rtx-40… lora, ckpt … bf16 adw8  hf    450W 16/24  5.5h  $3.00 2.75×
          13 1× a100-8… qlora, ckpt… nf4  adamw hf    450W 16/80  3.5h  $3.25 1.75×
          14 1× rtx-40… full, ckpt … bf16 adamw hf    450W 16/24  7.0h  $3.50 3.50×
          15 1× a100-8… lora, ckpt … bf16 adamw hf    450W 16/80  5.0h  $3.75 2.50×
          16 1× rtx-40… qlora, ckpt… nf4  adw8  hf    450W 16/24  3.0h  $4.00 1.50× *
          17 1× a100-8… full, ckpt … bf16 adamw hf    450W 16/80  6.5h  $4.25 3.25×
      wt=weights opt=optimizer eng=engine PL=power limit ×f=x fastest P=Pareto
      ▸ #1 hf-trainer, nf4 weights, adamw, 450 W limit, qlora, ckpt selective, flash,…
      ↑↓ move · 1-5 sort · f fits · / search · i edit · e export · ? help · q quit"
    `);
  });

  it('200×50', async () => {
    const frame = await frameAt(200, 50);
    expectTitles(frame, 200);
    expectSelected(frame);
    expectFits(frame, 200, 50);
    // Wide enough: hardware and technique are not cut.
    expect(frame).toContain('1× a100-80gb (owned)');
    expect(frame).toContain('qlora, ckpt selective, flash, mb 1×16');
    expect(frame).not.toMatch(/…/);
    expect(frame).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 feasible configurations → 40 distinct plans · 1/40 · by planner rank ▲
           # hardware                                 technique                                        weights optimizer        engine       power limit       mem/GPU      time      cost wall W x fastest P
      ❯    1 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     5.5 h     $0.25    750     2.75× *
           2 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     3.5 h     $0.50    800     1.75×
           3 1× a100-80gb (owned)                     lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     7.0 h     $0.75    700     3.50×
           4 1× rtx-4090 (owned)                      qlora, ckpt selective, flash, mb 1×16            nf4     adamw-8bit       hf-trainer         450 W   16.0/24 GiB     5.0 h     $1.00    750     2.50×
           5 1× a100-80gb (owned)                     full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     3.0 h     $1.25    800     1.50×
           6 1× rtx-4090 (owned)                      lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     6.5 h     $1.50    700     3.25× *
           7 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     4.5 h     $1.75    750     2.25×
           8 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw-8bit       hf-trainer         450 W   16.0/24 GiB     2.5 h     $2.00    800     1.25×
           9 1× a100-80gb (owned)                     lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     6.0 h     $2.25    700     3.00×
          10 1× rtx-4090 (owned)                      qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/24 GiB     4.0 h     $2.50    750     2.00×
          11 1× a100-80gb (owned)                     full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     2.0 h     $2.75    800     1.00× *
          12 1× rtx-4090 (owned)                      lora, ckpt selective, flash, mb 1×16             bf16    adamw-8bit       hf-trainer         450 W   16.0/24 GiB     5.5 h     $3.00    700     2.75×
          13 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     3.5 h     $3.25    750     1.75×
          14 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     7.0 h     $3.50    800     3.50×
          15 1× a100-80gb (owned)                     lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     5.0 h     $3.75    700     2.50×
          16 1× rtx-4090 (owned)                      qlora, ckpt selective, flash, mb 1×16            nf4     adamw-8bit       hf-trainer         450 W   16.0/24 GiB     3.0 h     $4.00    750     1.50× *
          17 1× a100-80gb (owned)                     full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     6.5 h     $4.25    800     3.25×
          18 1× rtx-4090 (owned)                      lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     4.5 h     $4.50    700     2.25×
          19 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     2.5 h     $4.75    750     1.25×
          20 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw-8bit       hf-trainer         450 W   16.0/24 GiB     6.0 h     $5.00    800     3.00×
          21 1× a100-80gb (owned)                     lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     4.0 h     $5.25    700     2.00× *
          22 1× rtx-4090 (owned)                      qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/24 GiB     2.0 h     $5.50    750     1.00×
          23 1× a100-80gb (owned)                     full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     5.5 h     $5.75    800     2.75×
          24 1× rtx-4090 (owned)                      lora, ckpt selective, flash, mb 1×16             bf16    adamw-8bit       hf-trainer         450 W   16.0/24 GiB     3.5 h     $6.00    700     1.75×
          25 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     7.0 h     $6.25    750     3.50×
          26 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     5.0 h     $6.50    800     2.50× *
          27 1× a100-80gb (owned)                     lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     3.0 h     $6.75    700     1.50×
          28 1× rtx-4090 (owned)                      qlora, ckpt selective, flash, mb 1×16            nf4     adamw-8bit       hf-trainer         450 W   16.0/24 GiB     6.5 h     $7.00    750     3.25×
          29 1× a100-80gb (owned)                     full, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/80 GiB     4.5 h     $7.25    800     2.25×
          30 1× rtx-4090 (owned)                      lora, ckpt selective, flash, mb 1×16             bf16    adamw            hf-trainer         450 W   16.0/24 GiB     2.5 h     $7.50    700     1.25×
          31 1× a100-80gb (owned)                     qlora, ckpt selective, flash, mb 1×16            nf4     adamw            hf-trainer         450 W   16.0/80 GiB     6.0 h     $7.75    750     3.00× *
          32 1× rtx-4090 (owned)                      full, ckpt selective, flash, mb 1×16             bf16    adamw-8bit       hf-trainer         450 W   16.0/24 GiB     4.0 h     $8.00    800     2.00×
      ┌──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┐
      │#1 qlora/bf16/adamw/mb1/owned:a100-80gbx1#1  (Pareto front)                                        │
      │16.0 GiB of 80.0 GiB per GPU, 64.0 GiB free (peak: start of backward)                              techniques · x fastest 2.75×; step time with / without each│
      │███████████░▞▞▞▞▞▞▞▚▚▪▪··························································································│×1.05 selective recomputation│
      │host RAM per node 26.0 GiB                                                                         pruned around it│
      │█ weights 8.0 GiB  ▓ adapters 0.1 GiB  ▒ gradients 0.1 GiB  ░ optimizer 0.4 GiB  ▞ activations 5.0 GiB20,088 out of GPU memory│
      │▚ logits 1.0 GiB  ▪ overhead 1.4 GiB                                                               12 circuits cannot carry the wall power│
      │power                                                                                              │
      │wall 750 W, GPUs 450 W                                                                             │
      │us-120v-15a#1 ████████████████████████████████████████····································· 750/1,440 W│
      │time and cost                                                                                      │
      │5.5 h at 999 tok/s; $0.25 (energy $0.25)                                                           │
      └──────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────────┘
      ↑↓ move · 1-5 sort · m g o filter · f fits · p front · / search · i edit · e export · b pin · c compare · ? help · q quit"
    `);
  });

  it('pages the help when it is taller than the screen', async () => {
    const first = await frameAt(80, 24, ['?']);
    expectFits(first, 80, 24);
    expect(first).toMatchInlineSnapshot(`
      "Test scenario · llama-2-13b · 40 distinct plans · 1/40 · by planner rank ▲
      ╭──────────────────────────────────────────────────────────────────────────────╮
      │ keys 1-19 of 31 (↑↓ space scroll · ? or Esc closes)                          │
      │ move                                                                         │
      │   ↑ ↓  k j          previous / next plan                                     │
      │   PgUp PgDn  ^u ^d  page up / down                                           │
      │   Home End          first / last plan                                        │
      │ sort (again: reverse)                                                        │
      │   1                 cost                                                     │
      │   2                 x fastest                                                │
      │   3                 wall power                                               │
      │   4                 time                                                     │
      │   5                 memory headroom                                          │
      │   0                 planner rank                                             │
      │ filter                                                                       │
      │   m g o             cycle method / GPU type / optimizer                      │
      │   f                 fits even if the estimate is low by its p90 error        │
      │   p                 Pareto front only                                        │
      │   /                 search plans (Enter keeps, Esc clears)                   │
      │   x                 clear filters and search                                 │
      │ views                                                                        │
      │   Enter d           detail pane on / off                                     │
      ╰──────────────────────────────────────────────────────────────────────────────╯
      ↑↓ move · 1-5 sort · f fits · / search · i edit · e export · ? help · q quit"
    `);
    const scrolled = await frameAt(80, 24, ['?', ' ', ' ']);
    expectFits(scrolled, 80, 24);
    expect(scrolled).toContain('clear a prompt'); // the last key, reached by paging
    expect(scrolled).not.toContain('previous / next plan');
  });
});
