// Accuracy against the shipped published measurements (calibration/cases.json, copied from the shared set).
import { describe, expect, it } from 'vitest';
import { summaryTable } from '../src/core/memory/index.js';
import { UNCERTAINTY } from '../src/core/memory/index.js';
import { calibrationRows } from '../src/commands/validate-run.js';
import { renderValidateText } from '../src/ui/validate-text.js';

const rows = calibrationRows('cases.json');
const summary = summaryTable(rows);
const get = (group: string) => summary.find((s) => s.group === group)!;

describe('calibration set', () => {
  it('scores every scorable case', () => {
    expect(rows.length).toBe(82);
    for (const r of rows) expect(Number.isFinite(r.error)).toBe(true);
  });

  // per kind, out of sample (no memory row is in sample); bars = the figures when the split was made.
  // training: 39 rows 3.5% / 7.1% when the split was made; ms-swift's packed Qwen2.5-7B full fine-tune over DeepSpeed
  // ZeRO-3 on four GPUs (+4.0%, first scored) makes 40 (3.6% / 6.7%); fms-acceleration's eight one-GPU and full
  // fine-tune A100 peaks, scored after their build's mechanisms were modelled, make 48 (2.7% / 6.7%); axolotl's gpt-oss
  // README and ms-swift's example-script comments (eight reserved peaks, first scored -3.4% to +47.2%) make 56
  // (3.4% / 10.5%): the p90 bar follows them, no model change was made for them. TRL's GRPO QLoRA notebook's T4 peak
  // (reserved, -10.5% first scored, no model change) makes 57. llama3-lora-bench's four TinyLlama LoRA allocated peaks
  // (LORABENCH_CASE below: -3.8%, -3.8%, -3.9%, -6.5% first scored, no model change) make 61 (3.5% / 7.0%).
  // pytorch/torchtitan#1789's DeepSeek-V3-16B peak reserved on 8 H100 (+16.8% first scored; -5.0% once a build that
  // compiled its loss alone is read as such, loss_compile 'alone') makes 62 (3.6% / 7.0%). BenjaminBossan/peft-experiments'
  // Llama-3-8B LoRA peaks, scored once a case sets its LoRA dropout (lora_dropout 0.05: +1.3%, -4.4%, +6.1%, +6.7%),
  // make 66 (3.6% / 7.0%).
  for (const [kind, count, med, p90] of [
    ['training', 66, 0.037, 0.106],
    ['decode', 16, 0.005, 0.007],
  ] as const)
    it(`kind:${kind}: ${count} rows, median <= ${med * 100}%, p90 <= ${p90 * 100}%`, () => {
      const s = get(`kind:${kind}`);
      expect(s.count).toBe(count);
      expect(s.medianAbsError).toBeLessThanOrEqual(med);
      expect(s.p90AbsError).toBeLessThanOrEqual(p90);
      expect(summary.some((x) => x.group.startsWith('in-sample:'))).toBe(false);
    });

  // Acceptance bar: per metric, median |error| <= 8% and p90 <= 20%.
  for (const metric of ['allocated', 'reserved', 'device']) {
    it(`${metric}: median <= 8% and p90 <= 20%`, () => {
      const s = get(`metric:${metric}`);
      expect(s.count).toBeGreaterThan(0);
      expect(s.medianAbsError).toBeLessThanOrEqual(0.08);
      expect(s.p90AbsError).toBeLessThanOrEqual(0.2);
    });
  }

  it('the published uncertainty band matches what validate measures', () => {
    const all = get('all');
    expect(UNCERTAINTY.p90AbsError).toBeGreaterThanOrEqual(all.p90AbsError);
    expect(UNCERTAINTY.p90AbsError - all.p90AbsError).toBeLessThan(0.03);
    expect(Math.abs(UNCERTAINTY.medianAbsError - all.medianAbsError)).toBeLessThan(0.02);
    const worstUnder = Math.max(0, ...rows.map((r) => -r.error));
    expect(UNCERTAINTY.maxUnderError).toBeGreaterThanOrEqual(worstUnder);
    expect(UNCERTAINTY.maxUnderError - worstUnder).toBeLessThan(0.02);
  });

  // no shipped peak above the band's high edge; validate says so on its last line.
  it('no case is under-estimated beyond the band, and validate says so', () => {
    expect(rows.filter((r) => r.error < -UNCERTAINTY.maxUnderError).map((r) => r.id)).toEqual([]);
    const last = renderValidateText(rows, summary).split('\n').at(-1)!;
    expect(last).toBe("no case is under-estimated beyond the band's high edge (-11.0%)");
  });

  // The ones beyond the p90 are named in the README (mechanisms not found); a new one fails here.
  it('names the cases under-estimated beyond the p90, and no others', () => {
    const under = rows.filter((r) => r.error < -UNCERTAINTY.p90AbsError).map((r) => r.id);
    expect(under.sort()).toEqual([
      'hfdocs-bert-06',
      'torchtune-flags-08',
      'trl-nb-grpo-qlora-qwen2-7b-t4',
      'unsloth-11',
      'unsloth-gptoss-500k',
    ]);
  });
});

// A source new to the set, scored before any model change, with its own bars: jscaldwell55/llama3-lora-bench's TinyLlama
// LoRA runs on one A100-40GB (fp16 weights and AMP, batch 4 x 128, torch.cuda.max_memory_allocated over trainer.train()).
const LORABENCH_CASE = /^lorabench-/;
describe('calibration set: llama3-lora-bench allocated peaks', () => {
  const own = rows.filter((r) => LORABENCH_CASE.test(r.id));
  it('four rows, each within 7% and under the estimate no further than first scored', () => {
    expect(own.map((r) => r.id).sort()).toEqual([
      'lorabench-tinyllama-a100-40-r16',
      'lorabench-tinyllama-a100-40-r32',
      'lorabench-tinyllama-a100-40-r4',
      'lorabench-tinyllama-a100-40-r8',
    ]);
    for (const r of own) {
      expect(Math.abs(r.error), r.id).toBeLessThanOrEqual(0.07);
      expect(r.error, r.id).toBeGreaterThanOrEqual(-0.07);
    }
  });
});

describe('informative set', () => {
  it('every case with a stated metric estimates to a finite error (validate --cases informative.json)', () => {
    const loose = calibrationRows('informative.json');
    expect(loose.length).toBeGreaterThan(40);
    for (const r of loose) expect(Number.isFinite(r.error)).toBe(true);
  });
});
