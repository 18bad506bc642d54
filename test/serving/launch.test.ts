// Serving launchers: serve.sh / llama-server lines parse back to the plan's settings; checkpoints in the plan's format.
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { serveLaunchOf } from '../helpers/launch.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { sglangDefaults } from '../../src/core/engines/sglang/memory.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { serveCommands, modelOf, readBack } from './serve-line.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { plan } from '../../src/core/plan/index.js';
import { inputOf } from './plan-input.js';
import { explainFit } from '../../src/core/plan/explain.js';

function launch(model: string, gpuId: string, flags: Record<string, unknown>) {
  const arch = resolveModel(model);
  const gpu = findGpu(gpuId);
  const options = withEngineDefaults(optionsFromFlags({ method: 'inference', ...flags }), flags);
  const estimate = buildEstimate(arch, options, gpu);
  const out = serveLaunchOf(arch, options, gpu, estimate);
  const files = Object.fromEntries(
    out.outputs.flatMap((e) => (e.ok ? e.files.map((f) => [f.path, f.content]) : [])),
  );
  return { arch, options, files, out };
}

describe('vLLM serve.sh', () => {
  it('an AWQ int4 plan points at the published checkpoint and its flags parse back', () => {
    const { files } = launch('llama-3.1-70b', 'rtx-a6000', {
      framework: 'vllm',
      weights: 'int4',
      tp: 2,
      gpus: 2,
      batch: 16,
      seq: 4096,
      'kv-cache-dtype': 'fp8',
    });
    const sh = String(files['serve.sh']);
    expect(modelOf(sh)).toBe('hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4');
    const [c, ...rest] = serveCommands(sh);
    expect(rest).toEqual([]);
    expect(c!['--tensor-parallel-size']).toBe('2');
    expect(c!['--max-num-seqs']).toBe('16');
    expect(c!['--max-model-len']).toBe('4096');
    expect(c!['--kv-cache-dtype']).toBe('fp8_e5m2'); // Ampere: E5M2, no scales (kernels.ts fp8KvFlag)
    expect(c!['--quantization']).toBeUndefined();
    expect(String(files['check.sh'])).toContain('/v1/completions');
  });
  it('nf4 is launched as bitsandbytes and timed as bitsandbytes', () => {
    const { files } = launch('llama-3.1-8b', 'rtx-4090', {
      framework: 'vllm',
      weights: 'nf4',
      gpu: 'rtx-4090',
    });
    expect(serveCommands(String(files['serve.sh']))[0]!['--quantization']).toBe('bitsandbytes');
  });
  it('fp8 without a published checkpoint quantizes while loading; with one, reads its config', () => {
    const q = launch('qwen2.5-14b', 'l40s', { framework: 'vllm', weights: 'fp8' });
    expect(serveCommands(String(q.files['serve.sh']))[0]!['--quantization']).toBe('fp8');
    const p = launch('llama-3.1-405b', 'h100-sxm', {
      framework: 'vllm',
      weights: 'fp8',
      tp: 8,
      gpus: 8,
    });
    expect(modelOf(String(p.files['serve.sh']))).toBe('meta-llama/Llama-3.1-405B-Instruct-FP8');
    expect(serveCommands(String(p.files['serve.sh']))[0]!['--quantization']).toBeUndefined();
  });
  it('an unpublished int4 checkpoint comes with the quantize step', () => {
    const { files } = launch('mistral-7b-v0.3', 'rtx-4090', { framework: 'vllm', weights: 'int4' });
    expect(String(files['serve.sh'])).toMatch(/llm-compressor oneshot, scheme W4A16/);
  });
  it('int4 defaults MODEL to a published AWQ checkpoint where one is known', () => {
    const cases: [string, string][] = [
      ['llama-3.3-70b-instruct', 'casperhansen/llama-3.3-70b-instruct-awq'],
      ['qwen2.5-7b', 'Qwen/Qwen2.5-7B-Instruct-AWQ'],
      ['qwen3-8b', 'Qwen/Qwen3-8B-AWQ'],
    ];
    for (const [model, published] of cases) {
      const { files } = launch(model, 'h100-sxm', { framework: 'vllm', weights: 'int4' });
      const sh = String(files['serve.sh']);
      expect(modelOf(sh)).toBe(published);
      expect(sh).not.toMatch(/llm-compressor/);
    }
  });
  it('a Qwen3 plan loads a published FP8-dynamic or GPTQ-Int4 checkpoint, with no --quantization or quantize step', () => {
    const cases: [string, 'fp8' | 'int4', string, number][] = [
      ['qwen3-32b', 'fp8', 'RedHatAI/Qwen3-32B-FP8-dynamic', 2],
      ['qwen3-30b-a3b', 'fp8', 'RedHatAI/Qwen3-30B-A3B-FP8-dynamic', 1],
      ['qwen3-30b-a3b', 'int4', 'Qwen/Qwen3-30B-A3B-GPTQ-Int4', 1],
      ['qwen3-235b-a22b', 'int4', 'Qwen/Qwen3-235B-A22B-GPTQ-Int4', 8],
    ];
    for (const [model, weights, published, tp] of cases) {
      for (const framework of ['vllm', 'sglang']) {
        const { files } = launch(model, 'h200-sxm', { framework, weights, tp, gpus: tp });
        const sh = String(files['serve.sh']);
        expect(modelOf(sh)).toBe(published);
        expect(serveCommands(sh)[0]!['--quantization']).toBeUndefined();
        expect(sh).not.toMatch(/llm-compressor/);
      }
    }
  });
  it('--quantization bitsandbytes folders install the bitsandbytes plugin and bitsandbytes', () => {
    const { files } = launch('llama-3.1-8b', 'rtx-4090', { framework: 'vllm', weights: 'nf4' });
    expect(serveCommands(String(files['serve.sh']))[0]!['--quantization']).toBe('bitsandbytes');
    const req = String(files['requirements.txt'])
      .split('\n')
      .filter((l) => l && !l.startsWith('#'));
    expect(req).toEqual(['vllm==0.33.0', 'vllm-bnb-plugin==0.0.3', 'bitsandbytes==0.50.2']);
    const plain = launch('llama-3.1-8b', 'rtx-4090', { framework: 'vllm' }).files;
    expect(String(plain['requirements.txt'])).not.toMatch(/bitsandbytes/);
  });
});

describe('SGLang serve.sh', () => {
  it('launch_server flags parse back, mem_fraction_static as the memory model used', () => {
    const { files, options } = launch('llama-3.1-8b', 'rtx-4090', {
      framework: 'sglang',
      weights: 'fp8',
      batch: 32,
      seq: 2048,
      gpus: 2,
    });
    const cmds = serveCommands(String(files['serve.sh']));
    expect(cmds).toHaveLength(2); // one replica per GPU, each on its own port
    expect(new Set(cmds.map((c) => c['--port'])).size).toBe(2);
    const c = cmds[0]!;
    expect(c['--tp-size']).toBe('1');
    expect(c['--context-length']).toBe('2048');
    expect(c['--max-running-requests']).toBe('32');
    expect(c['--kv-cache-dtype']).toBe('auto');
    expect(Number(c['--mem-fraction-static'])).toBe(
      sglangDefaults(findGpu('rtx-4090').memoryMiB * 2 ** 20, options.tp, options.pp)
        .memFractionStatic,
    );
    expect(modelOf(String(files['serve.sh']))).toBe('RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8');
  });
});

describe('llama-server line', () => {
  it('-ngl, -c, -np and the KV type parse back to the plan', () => {
    const { files } = launch('llama-3.1-70b', 'rtx-4090', {
      framework: 'llama.cpp',
      weights: 'q4_k_m',
      'gpu-layers': 40,
      seq: 8192,
      batch: 2,
      'kv-cache-dtype': 'fp8',
    });
    const sh = String(files['serve.sh']);
    const c = serveCommands(sh)[0]!;
    expect(c['-ngl']).toBe('40');
    expect(c['-c']).toBe(String(8192 * 2));
    expect(c['-np']).toBe('2');
    expect(c['-ctk']).toBe('q8_0');
    expect(c['-ctv']).toBe('q8_0');
    expect(c['-fa']).toBe('on');
    expect(c['-hf']).toBe('bartowski/Meta-Llama-3.1-70B-Instruct-GGUF:Q4_K_M');
    expect(modelOf(sh)).toBe('bartowski/Meta-Llama-3.1-70B-Instruct-GGUF');
  });
  it('a model without a published GGUF gets the convert and llama-quantize steps', () => {
    const { files } = launch('qwen2.5-1.5b', 'rtx-4090', {
      framework: 'llama.cpp',
      weights: 'q8_0',
    });
    const sh = String(files['serve.sh']);
    expect(sh).toMatch(/llama-quantize model-f16\.gguf model-Q8_0\.gguf Q8_0/);
    expect(serveCommands(sh)[0]!['-m']).toBe('model-Q8_0.gguf');
    expect(serveCommands(sh)[0]!['-ngl']).toBe(String(28 + 1));
  });
});

describe('llama.cpp over several GPUs', () => {
  it('a model one card cannot hold runs as one server over two (layer split), ahead of host offload', () => {
    const input = inputOf('serve-70b-awq-2x48gb.yaml', (s) => {
      s.search = { ...s.search, engines: ['llama.cpp'], weights: ['q8_0'] };
      if (s.job.kind !== 'inference') throw new Error('a serving scenario');
      s.job = { ...s.job, concurrency: 1, slo: undefined };
    });
    const best = plan({ ...input, top: 3 }).plans[0]!;
    expect(best.choices.pp).toBe(2); // 75 GB of q8_0 over two 48 GB cards
    expect(best.options.gpuLayers).toBeUndefined();
    const x = launchInputOfPlan(best, input.arch, 'meta-llama/Llama-3.1-70B');
    const sh = String(buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content);
    const [c, ...rest] = serveCommands(sh);
    expect(rest).toEqual([]); // one server, not one per GPU
    expect(c!['-sm']).toBe('layer');
    expect(c!['-ts']).toBe('1,1');
    expect(sh).toMatch(/^CUDA_VISIBLE_DEVICES=0,1 llama-server/m);
  });
});

describe('explain for llama.cpp', () => {
  it('offers the layer split over more GPUs, fewer -ngl layers and a smaller GGUF type', () => {
    const arch = resolveModel('llama-3.1-70b');
    const flags = { method: 'inference', framework: 'llama.cpp', weights: 'q5_k_m', seq: 8192 };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    const e = explainFit(arch, o, findGpu('rtx-4090'));
    expect(e.fits).toBe(false);
    const all = e.fixes.map((f) => f.options);
    expect(all.some((x) => x.pp === 2 && x.gpus === 2 && x.gpuLayers === undefined)).toBe(true);
    expect(all.some((x) => x.gpuLayers !== undefined && x.gpus === 1)).toBe(true);
    expect(
      all.some((x) => x.weights === 'q4_k_m' && x.gpuLayers === undefined && x.gpus === 1),
    ).toBe(
      false, // 40 GiB of Q4_K_M still needs more than one 24 GiB card
    );
  });
});

describe('explain for a checkpoint that ships quantized', () => {
  it('offers its shipped format first: gpt-oss-20b in MXFP4 fits one 24 GiB card, exact', () => {
    const arch = resolveModel('gpt-oss-20b');
    const flags = { method: 'inference', framework: 'vllm' };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    const e = explainFit(arch, o, findGpu('rtx-3090'));
    expect(e.fits).toBe(false);
    const first = e.fixes[0]!;
    expect(first.options.weights).toBe('mxfp4');
    expect(first.options.gpus).toBe(1);
    expect(first.quality).toBe('exact');
  });
  it('offers nothing of the kind for a checkpoint that ships in 16 bits', () => {
    const arch = resolveModel('llama-3.1-70b');
    const flags = { method: 'inference', framework: 'vllm' };
    const o = withEngineDefaults(optionsFromFlags(flags), flags);
    const e = explainFit(arch, o, findGpu('h100-sxm'));
    expect(e.fixes.some((f) => f.changes.some((c) => c.label.includes('as shipped')))).toBe(false);
  });
});

describe('serve.sh over several machines', () => {
  function nodeLaunch(framework: string, flags: Record<string, unknown>) {
    const arch = resolveModel('deepseek-v3');
    const gpu = findGpu('h100-sxm');
    const options = withEngineDefaults(
      optionsFromFlags({ method: 'inference', framework, weights: 'fp8', ...flags }),
      flags,
    );
    const out = buildLaunch({
      arch,
      options,
      gpu,
      gradAccum: 1,
      powerLimitW: null,
      estimate: buildEstimate(arch, options, gpu),
      modelRef: arch.hfId ?? arch.id,
      gpusPerNode: 8,
    });
    const server = out.outputs.find((e) => e.ok && e.files.some((f) => f.path === 'serve.sh'));
    return server?.ok ? String(server.files.find((f) => f.path === 'serve.sh')!.content) : '';
  }
  const dpa = { gpus: 16, tp: 2, 'dp-attention': true, ep: 16, batch: 8, seq: 8192 };

  it("SGLang starts one replica over two machines with its node flags, each machine's GPUs 0-7", () => {
    const sh = nodeLaunch('sglang', dpa);
    const [c, ...rest] = serveCommands(sh);
    expect(rest).toEqual([]);
    expect(sh).toContain('CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 python -m sglang.launch_server');
    expect(c!['--tp-size']).toBe('16');
    expect(c!['--nnodes']).toBe('2');
    expect(c!['--node-rank']).toBe('$NODE_RANK');
    expect(c!['--dist-init-addr']).toBe('$MASTER_ADDR:20000');
    expect(readBack(sh).flags).toMatchObject({ tp: 2, 'dp-attention': true, ep: 16 });
  });

  it('vLLM splits DP attention ranks over the machines, headless on all but the first', () => {
    const sh = nodeLaunch('vllm', dpa);
    const [c, ...rest] = serveCommands(sh);
    expect(rest).toEqual([]);
    expect(c!['--data-parallel-size']).toBe('8');
    expect(c!['--data-parallel-size-local']).toBe('4');
    expect(c!['--data-parallel-start-rank']).toBe('$((NODE_RANK*4))');
    expect(c!['--data-parallel-address']).toBe('$MASTER_ADDR');
    expect(sh).toContain('[ "$NODE_RANK" = 0 ] || HEADLESS=--headless');
    expect(sh).not.toContain('8,9');
  });

  it('vLLM tensor parallelism over two machines uses its multiprocessing node flags', () => {
    const sh = nodeLaunch('vllm', { gpus: 16, tp: 16, batch: 8, seq: 8192 });
    const [c] = serveCommands(sh);
    expect(c!['--tensor-parallel-size']).toBe('16');
    expect(c!['--nnodes']).toBe('2');
    expect(c!['--master-addr']).toBe('$MASTER_ADDR');
  });

  it('replicas that each fit a machine are started machine by machine on GPU ids 0-7', () => {
    const sh = nodeLaunch('vllm', { gpus: 16, tp: 4, batch: 8, seq: 8192 });
    expect(serveCommands(sh)).toHaveLength(4);
    expect(sh).toContain('case "$NODE_RANK" in');
    expect(sh).not.toMatch(/CUDA_VISIBLE_DEVICES=\S*(8|9|1[0-5])\b/);
  });
});
