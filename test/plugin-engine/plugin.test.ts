// An engine is one folder and one registration: the test engine of test/plugin-engine/toyserve (no file of src/
// names it) is ranked by the search, modelled by estimate, written by launch and read back by --from, its launch
// folder included (its launch-folder reader, picked by the script's engine among the engines writing serve.sh).
import { afterAll, describe, expect, it } from 'vitest';
import { scratchDir } from '../helpers/run-cli.js';
import { loadLaunchers, registerEngine } from '../../src/core/engines/registry.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import { plan } from '../../src/core/plan/index.js';
import { mapServeScript, parseServeScript } from '../../src/core/from/serve-map.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { planInputOf } from '../../src/io/plan-scenario.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { scenarioSchema } from '../../src/schema/scenario.js';
import { TOYSERVE } from './toyserve/index.js';

registerEngine(TOYSERVE);
await loadLaunchers();

const scratch = scratchDir('vramplan-plugin-');
afterAll(() => scratch.remove());
const folder = scratch.folder;

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
    // One GPU: the script alone names no GPU count (a server's --tp 1); the folder's toyserve.json does.
    expect(best!.options.gpus).toBe(1);
    expect(back.flags.gpus).toBeUndefined();

    // --from <the folder launch wrote>: serve.sh mapped, then toyserve's launch-folder reader over the folder.
    const dir = folder(
      'launched',
      Object.fromEntries(bundle.files.map((f) => [f.path, f.content])),
    );
    const c = readFromConfig(dir);
    expect(c.format).toBe('toyserve');
    expect(c.model).toBe(back.model); // the checkpoint the plan serves
    expect(c.model).toMatch(/Llama-3\.1-8B/);
    // and the folder's power-limit.sh, where the plan caps the GPU, its --power-limit.
    const { 'power-limit': limit, ...rest } = c.flags as Record<string, unknown>;
    expect(rest).toEqual({ ...back.flags, gpus: 1 });
    const capped = bundle.files.some((f) => f.path === 'power-limit.sh');
    if (capped) expect(limit).toMatch(/^\d+W$/);
    else expect(limit).toBeUndefined();
  });

  it('--from <folder> runs its launch-folder reader: toyserve.json gives the GPUs, for toyserve scripts only', () => {
    const script = 'toyserve serve org/model --tp 2 --max-seqs 8 --max-len 1024\n';
    const alone = readFromConfig(folder('alone', { 'serve.sh': script }));
    expect(alone.flags).toMatchObject({ framework: 'toyserve', tp: 2, gpus: 2, batch: 8 });
    const placed = readFromConfig(
      folder('placed', { 'serve.sh': script, 'toyserve.json': '{"gpus": 6}\n' }),
    );
    expect(placed.flags).toEqual({ ...alone.flags, gpus: 6 });
    // A vLLM serve.sh beside a toyserve.json is read by vLLM's reader, which takes serve.sh alone.
    const vllm = 'vllm serve org/model --tensor-parallel-size 2 --max-num-seqs 8\n';
    const v = readFromConfig(
      folder('vllm', { 'serve.sh': vllm, 'toyserve.json': '{"gpus": 6}\n' }),
    );
    expect(v.flags).toMatchObject({ framework: 'vllm', tp: 2, gpus: 2 });
  });
});
