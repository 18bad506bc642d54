// transformers generate runs one PEFT adapter unmerged on every sequence of the batch (PeftAdapterMixin.load_adapter
// injects lora.Linear on the adapter's targets): --max-loras 1 on hf-generate is estimated, its adapter's A and B on
// the targeted linears counted and its forward's ops and Python timed at each decode step; a second adapter is refused.
import { describe, expect, it } from 'vitest';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineRefusal, withEngineDefaults } from '../../src/core/engines/defaults.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { flagsLaunchInput } from '../../scripts/check-launch-libs/folders.js';

const llama = resolveModel('llama-3.1-8b');
const gpu = findGpu('h100-sxm');

function on(flags: Record<string, unknown>) {
  const all = {
    framework: 'hf-generate',
    method: 'inference',
    gpu: 'h100-sxm',
    batch: 8,
    ...flags,
  };
  const o = withEngineDefaults(optionsFromFlags(all), all);
  return { o, refusal: engineRefusal(llama, o, all), e: () => buildEstimate(llama, o, gpu) };
}

describe('hf-generate --max-loras 1: one PEFT adapter run unmerged', () => {
  it('is estimated: finite memory and time, the adapter counted on its targets', () => {
    const p = on({ 'max-loras': 1, weights: 'nf4' });
    expect(p.refusal).toBeNull();
    const e = p.e();
    for (const v of [e.perGpu.deviceBytes, ...Object.values(e.perGpu.breakdown)])
      expect(Number.isFinite(v) && v >= 0).toBe(true);
    // q and v at rank 16 on 32 layers: 16 x ((4096 + 4096) + (4096 + 1024)) x 32, fp32 beside a 4-bit base.
    expect(e.perGpu.breakdown.adapters).toBe(16 * (8192 + 5120) * 32 * 4);
    expect(e.time!.settings.quantFormat).toBe('bnb');
    expect(e.time!.stepSeconds).toBeGreaterThan(0);
  });

  it("adds PEFT's forward ops at every decode step: slower than the merged adapter", () => {
    const merged = on({}).e().time!;
    const one = on({ 'max-loras': 1 }).e().time!;
    expect(one.stepSeconds).toBeGreaterThan(merged.stepSeconds * 1.05);
    // The eager step's dispatch (its 'overhead' phase) grows; the adapter's read is its own phase.
    const phase = (t: typeof one, p: string) => t.phases.find((x) => x.phase === p)?.seconds ?? 0;
    expect(phase(one, 'overhead')).toBeGreaterThan(phase(merged, 'overhead'));
    expect(phase(one, 'lora')).toBeGreaterThan(0);
  });

  it('a second adapter is still refused, citing transformers set_adapter', () => {
    expect(on({ 'max-loras': 2 }).refusal).toMatch(/--max-loras: got 2; expected 1 on hf-generate/);
  });
});

describe('hf-generate --max-loras 1: generate.py loads the adapter it was planned with', () => {
  const files = (flags: Record<string, unknown>) => {
    const all = { method: 'inference', framework: 'hf', batch: '4', seq: '2048', ...flags };
    const out = buildLaunch(flagsLaunchInput('llama-3.1-8b', 'h100-sxm', all)).files;
    const text = (path: string) => out.find((f) => f.path === path)?.content ?? '';
    return { py: text('generate.py'), req: text('requirements.txt') };
  };

  it('keeps it unmerged with load_adapter, PEFT pinned beside transformers', () => {
    // transformers 5.14.1 PeftAdapterMixin.load_adapter(peft_model_id) raises without PEFT (check_peft_version).
    const one = files({ 'max-loras': '1' });
    expect(one.py).toMatch(/^ADAPTER = os\.environ\["ADAPTER"\]/m);
    expect(one.py).toMatch(/^model\.load_adapter\(ADAPTER\)$/m);
    expect(one.py.indexOf('load_adapter')).toBeGreaterThan(one.py.indexOf('from_pretrained('));
    expect(one.py.indexOf('load_adapter')).toBeLessThan(one.py.indexOf('model.generate('));
    expect(one.req).toMatch(/^peft==0\.21\.2$/m);
  });

  it('writes neither without an adapter', () => {
    const none = files({});
    expect(none.py).not.toMatch(/ADAPTER|load_adapter/);
    expect(none.req).not.toMatch(/peft/);
  });
});
