// `--from` for the serving engines: serve.sh written by `launch` reads back to the plan's settings and bytes;
// hand-written vllm serve / sglang / llama-server lines and vLLM's --config YAML map to the estimate options.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { serveShOf } from '../helpers/launch.js';
import { buildEstimate } from '../../src/core/estimate.js';
import { checkpointWeightsInto, mergeFlags } from '../../src/core/from/index.js';
import { FromError } from '../../src/core/from/common.js';
import { resolveModel } from '../../src/io/load-model.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { readFromConfig } from '../../src/io/from/read.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import fc from 'fast-check';
import { readBack } from './serve-line.js';
import { weightsFromName } from '../../src/core/from/serve.js';
import { mapServeScript, parseServeScript } from '../../src/core/from/serve-map.js';

const tmp = mkdtempSync(join(tmpdir(), 'vramplan-serve-from-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function launch(model: string, gpuId: string, flags: Record<string, unknown>) {
  const arch = resolveModel(model);
  const gpu = findGpu(gpuId);
  const all = { method: 'inference', ...flags };
  const options = withEngineDefaults(optionsFromFlags(all), all);
  const estimate = buildEstimate(arch, options, gpu);
  return { arch, gpu, options, estimate, sh: serveShOf(arch, options, gpu, estimate) };
}

/** The settings a serve.sh carries (ranking-only and time-only knobs excluded). */
const KEYS = [
  'method',
  'framework',
  'weights',
  'batch',
  'seq',
  'tp',
  'pp',
  'gpus',
  'kvCacheDtype',
  'prefixCacheFraction',
  'cpuMoeLayers',
] as const;

const CASES: [string, string, Record<string, unknown>][] = [
  ['llama-3.1-8b', 'rtx-4090', { framework: 'vllm', batch: 16, seq: 4096, gpus: 2 }],
  [
    'llama-3.1-70b',
    'rtx-a6000',
    { framework: 'vllm', weights: 'int4', tp: 2, gpus: 2, batch: 8, 'kv-cache-dtype': 'fp8' },
  ],
  ['llama-3.1-8b', 'l40s', { framework: 'vllm', weights: 'fp8', 'prefix-cache': 0.5 }],
  ['llama-3.1-8b', 'rtx-4090', { framework: 'vllm', weights: 'nf4', pp: 2, gpus: 2 }],
  ['llama-3.1-8b', 'rtx-4090', { framework: 'sglang', weights: 'fp8', batch: 32, gpus: 2 }],
  ['llama-3.1-8b', 'h100-sxm', { framework: 'sglang', tp: 2, gpus: 4, 'prefix-cache': 0.3 }],
  [
    'llama-3.1-70b',
    'rtx-4090',
    { framework: 'llama.cpp', weights: 'q4_k_m', 'gpu-layers': 40, seq: 8192, batch: 2 },
  ],
  [
    'llama-3.1-70b',
    'rtx-4090',
    { framework: 'llama.cpp', weights: 'q4_k_m', pp: 2, gpus: 4, 'kv-cache-dtype': 'fp8' },
  ],
  ['qwen2.5-7b', 'rtx-4090', { framework: 'llama.cpp', weights: 'q8_0', 'prefix-cache': 0.5 }],
  // Counts the exact search picks (plan/layer-fit.ts), off any grid of the layers.
  [
    'llama-3.1-70b',
    'rtx-4090',
    { framework: 'llama.cpp', weights: 'q4_k_m', 'gpu-layers': 43, 'kv-cache-dtype': 'fp8' },
  ],
  ['gpt-oss-120b', 'rtx-4090', { framework: 'llama.cpp', weights: 'mxfp4', 'n-cpu-moe': 31 }],
];

describe('serve.sh read back with --from', () => {
  for (const [model, gpuId, flags] of CASES)
    it(`${model} ${JSON.stringify(flags)}: the plan's settings and bytes`, () => {
      const x = launch(model, gpuId, flags);
      const back = readBack(x.sh);
      const merged = mergeFlags(
        {
          format: 'vllm',
          model: back.model,
          flags: back.flags,
          warnings: [],
          ignored: [],
          unknown: [],
          deepspeedRef: null,
          deepspeedInline: null,
          memoryKeys: [],
        },
        {},
      );
      const o = withEngineDefaults(optionsFromFlags(merged), merged);
      for (const k of KEYS) expect(o[k], k).toEqual(x.options[k]);
      // -ngl all layers + 1 reads back as that number: the same layers on the GPU as "all".
      const L = x.arch.groups.reduce((a, g) => a + g.count, 0);
      expect(Math.min(o.gpuLayers ?? L + 1, L + 1)).toBe(
        Math.min(x.options.gpuLayers ?? L + 1, L + 1),
      );
      expect(buildEstimate(x.arch, o, x.gpu).perGpu).toEqual(x.estimate.perGpu);
    });

  it('a launch folder is read through its serve.sh, with the model the checkpoint is of', () => {
    const x = launch('llama-3.1-70b', 'rtx-a6000', {
      framework: 'vllm',
      weights: 'int4',
      tp: 2,
      gpus: 2,
    });
    const dir = join(tmp, 'vllm-int4');
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'serve.sh'), x.sh);
    const c = readFromConfig(dir);
    expect(c.format).toBe('vllm');
    expect(c.model).toBe('meta-llama/Llama-3.1-70B');
    expect(c.flags).toMatchObject({ weights: 'int4', tp: 2, framework: 'vllm' });
  });
});

describe('prefix caching in serve.sh', () => {
  it('vLLM: --enable-prefix-caching with the plan share, --no-enable-prefix-caching without', () => {
    const on = launch('llama-3.1-8b', 'l40s', { framework: 'vllm', 'prefix-cache': 0.5 }).sh;
    expect(on).toMatch(/--enable-prefix-caching/);
    expect(on).toMatch(/^# vramplan: --prefix-cache 0\.5 /m);
    const off = launch('llama-3.1-8b', 'l40s', { framework: 'vllm' }).sh;
    expect(off).toMatch(/--no-enable-prefix-caching/);
    expect(readBack(off).flags['prefix-cache']).toBeUndefined();
  });
  it('SGLang: --disable-radix-cache only when the plan counts no cached share', () => {
    expect(launch('llama-3.1-8b', 'l40s', { framework: 'sglang' }).sh).toMatch(
      /--disable-radix-cache/,
    );
    const on = launch('llama-3.1-8b', 'l40s', { framework: 'sglang', 'prefix-cache': 0.4 }).sh;
    expect(on).not.toMatch(/--disable-radix-cache/);
    expect(readBack(on).flags['prefix-cache']).toBe(0.4);
  });
  it('a hand-written --enable-prefix-caching says the hit share is not known', () => {
    const r = readBack(
      'vllm serve m --max-model-len 4096 --max-num-seqs 8 --enable-prefix-caching',
    );
    expect(r.flags['prefix-cache']).toBeUndefined();
    expect(r.warnings.join('\n')).toMatch(/--enable-prefix-caching: the share of each prompt/);
  });
});

describe('hand-written server lines', () => {
  it('vllm serve: short and long spellings, human-readable lengths, replicas, quantization', () => {
    const r = readBack(
      [
        'export HF_TOKEN=x QUANT=AWQ',
        'CUDA_VISIBLE_DEVICES=0,1,2,3 nohup vllm serve "Qwen/Qwen2.5-72B-Instruct-$QUANT" -tp 4 \\',
        '  --max_model_len 32k --max-num-seqs=64 --kv-cache-dtype fp8_e5m2 --port 9000 --enable-auto-tool-choice',
      ].join('\n'),
    );
    // A published AWQ checkpoint of a catalog model reads back as that model with int4 weights.
    expect(r.model).toBe('Qwen/Qwen2.5-72B');
    expect(r.flags).toMatchObject({
      method: 'inference',
      framework: 'vllm',
      tp: 4,
      gpus: 4,
      seq: 32000,
      batch: 64,
      weights: 'int4',
      'kv-cache-dtype': 'fp8',
    });
    expect(r.warnings.join('\n')).toMatch(/not used.*--enable-auto-tool-choice/);
  });
  it('vllm serve without --max-num-seqs takes vLLM default 256 and says so', () => {
    const r = readBack('vllm serve meta-llama/Llama-3.1-8B -q bitsandbytes --dtype half');
    expect(r.flags).toMatchObject({ batch: 256, weights: 'nf4', compute: 'fp16' });
    expect(r.warnings.join('\n')).toMatch(/--max-num-seqs not given/);
  });
  it('python -m sglang.launch_server with --tp / --dp aliases', () => {
    const r = readBack(
      'python3 -m sglang.launch_server --model-path RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8 --tp 2 --dp 2 --context-length 8192 --max-running-requests 48 --kv-cache-dtype fp8_e4m3',
    );
    expect(r.model).toBe('meta-llama/Llama-3.1-8B');
    expect(r.flags).toMatchObject({
      framework: 'sglang',
      tp: 2,
      gpus: 4,
      seq: 8192,
      batch: 48,
      weights: 'fp8',
      'kv-cache-dtype': 'fp8',
    });
  });
  it('a command naming no format serves the checkpoint as it ships (its quantization_config)', () => {
    const sh =
      'python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3 --tp 8 --dp 8 --enable-dp-attention';
    const config = mapServeScript(parseServeScript(sh));
    expect(config.checkpointWeights).toBe(true);
    const flags = mergeFlags(config, {});
    checkpointWeightsInto(config, {}, flags, resolveModel('deepseek-v3'));
    expect(flags.weights).toBe('fp8');
    // --weights on the command line wins; a 16-bit checkpoint keeps the default.
    const given = mergeFlags(config, { weights: 'int4' });
    checkpointWeightsInto(config, { weights: 'int4' }, given, resolveModel('deepseek-v3'));
    expect(given.weights).toBe('int4');
    const plain = mergeFlags(config, {});
    checkpointWeightsInto(config, {}, plain, resolveModel('llama-3.1-8b'));
    expect(plain.weights).toBeUndefined();
    // A format the command names is not overridden.
    const q = mapServeScript(
      parseServeScript('vllm serve deepseek-ai/DeepSeek-V3 --quantization awq'),
    );
    expect(q.checkpointWeights).toBe(false);
  });
  it('llama-server: -c over -np slots, -ngl, a q8_0 cache, two GPUs by CUDA_VISIBLE_DEVICES', () => {
    const r = readBack(
      'CUDA_VISIBLE_DEVICES=0,1 ./build/bin/llama-server -m models/Llama-3.1-70B-Q5_K_M.gguf -ngl 60 -c 32768 -np 4 -ctk q8_0 -ctv q8_0 -fa on',
    );
    expect(r.model).toBeNull(); // a local .gguf file: --model names the architecture
    expect(r.flags).toMatchObject({
      framework: 'llama.cpp',
      weights: 'q5_k_m',
      'gpu-layers': 60,
      seq: 8192,
      batch: 4,
      'kv-cache-dtype': 'fp8',
      pp: 2,
      gpus: 2,
    });
  });
  it('llama-server: each --lora and --lora-scaled is one adapter (--max-loras), the flag repeated', () => {
    const r = readBack(
      'llama-server -m llama-3.1-8b-Q4_K_M.gguf -ngl 99 -c 8192 -np 4 --lora a.gguf --lora b.gguf --lora-scaled c.gguf 0.5',
    );
    expect(r.flags).toMatchObject({ framework: 'llama.cpp', 'max-loras': 3, batch: 4 });
    expect(r.warnings.join(' ')).not.toMatch(/--lora/);
    expect(readBack('llama-server -m x-Q4_K_M.gguf -np 2').flags['max-loras']).toBeUndefined();
  });
  it('docker run of the vLLM and llama.cpp server images', () => {
    const v = readBack(
      'docker run --runtime nvidia --gpus all -p 8000:8000 --ipc=host vllm/vllm-openai:latest --model meta-llama/Llama-3.1-8B-Instruct --max-model-len 8192 --max-num-seqs 16',
    );
    expect(v.flags).toMatchObject({ framework: 'vllm', seq: 8192, batch: 16 });
    expect(v.model).toBe('meta-llama/Llama-3.1-8B-Instruct');
    const l = readBack(
      'docker run --gpus all -v /models:/models ghcr.io/ggml-org/llama.cpp:server-cuda -m /models/llama-3.1-8b-Q6_K.gguf -ngl 99 -c 8192 -np 2',
    );
    expect(l.flags).toMatchObject({ framework: 'llama.cpp', weights: 'q6_k', seq: 4096, batch: 2 });
  });
  it('a bad value is one error naming the flag as written; unknown flags only warn', () => {
    expect(() => readBack('vllm serve m --max-model-len lots')).toThrow(FromError);
    expect(() => readBack('vllm serve m --max-model-len lots')).toThrow(
      /--max-model-len: got "lots"/,
    );
    expect(() => readBack('vllm serve m --kv-cache-dtype fp9')).toThrow(
      /--kv-cache-dtype: got "fp9"; expected one of auto, bfloat16, fp8/,
    );
    expect(() => readBack('llama-server -m x.gguf -np 0')).toThrow(/-np: got "0"/);
    expect(() => readBack('llama-server -m x.gguf -sm diagonal')).toThrow(
      /-sm: got "diagonal"; expected one of none, layer, row, tensor/,
    );
    expect(
      readBack('CUDA_VISIBLE_DEVICES=0,1 llama-server -m x.gguf -sm tensor').warnings.join(),
    ).toMatch(/--split-mode tensor: estimated as a layer split/);
    expect(() => readBack('vllm serve m --totally-new-flag 3 --max-num-seqs 4')).not.toThrow();
  });
});

describe('vLLM --config YAML', () => {
  it('alone, and spliced into the command line (the command line wins)', () => {
    const yaml = join(tmp, 'vllm.yaml');
    writeFileSync(
      yaml,
      'model: meta-llama/Llama-3.1-8B\ntensor-parallel-size: 2\nmax-model-len: 8192\nmax_num_seqs: 32\nenable-prefix-caching: false\n',
    );
    const alone = readFromConfig(yaml);
    expect(alone.format).toBe('vllm');
    expect(alone.flags).toMatchObject({ tp: 2, seq: 8192, batch: 32, gpus: 2 });
    const sh = join(tmp, 'serve-config.sh');
    writeFileSync(sh, 'vllm serve --config vllm.yaml --max-num-seqs 8\n');
    const spliced = readFromConfig(sh);
    expect(spliced.model).toBe('meta-llama/Llama-3.1-8B');
    expect(spliced.flags).toMatchObject({ tp: 2, seq: 8192, batch: 8 });
  });
  it('a --config that is not there is one line naming it', () => {
    const sh = join(tmp, 'missing-config.sh');
    writeFileSync(sh, 'vllm serve m --config nowhere.yaml\n');
    expect(() => readFromConfig(sh)).toThrow(/--config: 'nowhere.yaml' not found/);
  });
});

describe('weight format from the checkpoint name', () => {
  it.each([
    ['hugging-quants/Meta-Llama-3.1-8B-Instruct-AWQ-INT4', 'int4'],
    ['Qwen/Qwen2.5-7B-Instruct-GPTQ-Int8', 'int8'],
    ['RedHatAI/Llama-3.1-8B-Instruct-quantized.w8a8', 'int8'],
    ['RedHatAI/Meta-Llama-3.1-8B-Instruct-FP8', 'fp8'],
    ['unsloth/Llama-3.1-8B-bnb-4bit', 'nf4'],
    ['nvidia/Llama-3.1-8B-Instruct-FP4', null],
    ['nvidia/Llama-3.3-70B-Instruct-NVFP4', 'nvfp4'],
    ['openai/gpt-oss-20b', 'mxfp4'],
    ['bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q5_K_M', 'q5_k_m'],
    ['meta-llama/Llama-3.1-8B-Instruct', null],
  ])('%s → %s', (name, weights) => expect(weightsFromName(name)).toBe(weights));
});

describe('hostile command lines', () => {
  const word = fc.oneof(
    fc.constantFrom(
      'vllm',
      'serve',
      'llama-server',
      'python',
      '-m',
      'sglang.launch_server',
      '--max-model-len',
      '-tp',
      '-c',
      '-np',
      '--config',
      '"',
      "'",
      '\\',
      '$MODEL',
      '${X:-',
      '&&',
      ';',
      '&',
      '#',
      '=',
      '\n',
    ),
    fc.string({ maxLength: 6 }),
  );
  it('any text parses; mapping it gives flags or one FromError, never another exception', () => {
    fc.assert(
      fc.property(fc.array(word, { maxLength: 30 }), (words) => {
        const text = words.join(' ');
        const script = parseServeScript(text);
        try {
          mapServeScript(script);
        } catch (e) {
          expect(e).toBeInstanceOf(FromError);
        }
      }),
      { numRuns: 500, seed: 20261126 },
    );
  });
});
