// An engine is one folder and one registration: the test engine of test/plugin-engine/toyserve (no file of src/
// names it) is ranked by the search, modelled by estimate, written by launch and read back by --from.
import { describe, expect, it } from 'vitest';
import { loadLaunchers, registerEngine } from '../../src/core/engines/registry.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { plan } from '../../src/core/plan/index.js';
import { mapServeScript, parseServeScript } from '../../src/core/from/serve-map.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { TOYSERVE } from './toyserve/index.js';

registerEngine(TOYSERVE);
await loadLaunchers();

const arch = resolveModel('llama-3.1-8b');
const gpu = findGpu('h100-sxm');
const flags = { method: 'inference', batch: 16, seq: 4096 };
const estimateOn = (framework: string) => {
  const f = { ...flags, framework };
  return buildEstimate(arch, withEngineDefaults(optionsFromFlags(f), f), gpu);
};

describe('a plug-in engine registered from outside src/', () => {
  it('estimate --framework toyserve models it with its own memory profile (vLLM-like here: the same bytes)', () => {
    const toy = estimateOn('toyserve');
    const vllm = estimateOn('vllm');
    expect(toy.options.framework).toBe('toyserve');
    expect(toy.perGpu.deviceBytes).toBeGreaterThan(0);
    expect(toy.perGpu.deviceBytes).toBe(vllm.perGpu.deviceBytes);
    expect(toy.time?.tokensPerSecondPerGpu).toBeGreaterThan(0);
    expect(toy.time?.tokensPerSecondPerGpu).toBe(vllm.time?.tokensPerSecondPerGpu);
  });

  it('an unknown framework is still refused, and the message lists the plug-in', () => {
    expect(() => optionsFromFlags({ ...flags, framework: 'toyserv' })).toThrow(/toyserve/);
  });

  it('the search ranks it, launch writes its serve.sh, and --from reads the script back', () => {
    const scenario = scenarioSchema.parse({
      name: 'toy',
      model: 'llama-3.1-8b',
      job: { kind: 'inference', context: 4096, concurrency: 16 },
      hardware: { owned: [{ gpu: 'h100-sxm', count: 1 }] },
      search: { engines: ['toyserve'] },
    });
    const best = plan({ ...planInputOf('toy.yaml', scenario), top: 3 }).plans[0];
    expect(best, 'a ranked plan').toBeDefined();
    expect(best!.choices.engine).toBe('toyserve');

    const bundle = buildLaunch(launchInputOfPlan(best!, arch, 'meta-llama/Llama-3.1-8B', gpu));
    const serve = bundle.files.find((f) => f.path === 'serve.sh');
    expect(serve?.content).toMatch(
      /^toyserve serve "\$MODEL" --tp 1 --max-seqs \d+ --max-len 4096$/m,
    );

    const back = mapServeScript(parseServeScript(serve!.content));
    expect(back.format).toBe('toyserve');
    expect(back.flags).toMatchObject({ method: 'inference', framework: 'toyserve', seq: 4096 });
    expect(back.flags.batch).toBe(best!.options.batch);
  });
});
