// llama-server lines as published. -ot/--override-tensor <regex>=<buffer>: llama.cpp sends each tensor whose name the first matching
// pattern finds to that buffer (common/arg.cpp; --cpu-moe and --n-cpu-moe are such overrides of the expert
// tensors, ggml-org/llama.cpp#14992 and ggml-org/llama.cpp#15077), so an -ot that puts `ffn_*_exps` on the CPU
// keeps those layers' experts in host RAM, as --n-cpu-moe does.
import { describe, expect, it } from 'vitest';
import { mapServeScript, parseServeScript } from '../../src/core/from/serve-map.js';
import { hostExpertLayers } from '../../src/core/engines/llama-cpp/from.js';

const flagsOf = (line: string) => mapServeScript(parseServeScript(line)).flags;
const warningsOf = (line: string) => mapServeScript(parseServeScript(line)).warnings;
const GGUF = 'llama-server -m gpt-oss-120b-mxfp4-00001-of-00003.gguf -c 16384 -ngl 999';

describe('llama-server --override-tensor', () => {
  it("every layer's experts on the CPU reads as --cpu-moe, in the spellings published commands use", () => {
    const cpuMoe = flagsOf(`${GGUF} --cpu-moe`)['n-cpu-moe'];
    expect(cpuMoe).toBe(100_000);
    for (const ot of [
      `-ot ".ffn_.*_exps.=CPU"`,
      `-ot exps=CPU`,
      `--override-tensor '\\.ffn_(up|down|gate)_exps=CPU'`,
      `-ot "([0-9]+).ffn_.*_exps.=CPU"`,
      `--override-tensor=blk\\.[0-9]+\\.ffn_(up|down|gate)_exps=CPU`,
    ])
      expect(flagsOf(`${GGUF} ${ot}`)['n-cpu-moe'], ot).toBe(cpuMoe);
    expect(warningsOf(`${GGUF} -ot exps=CPU`).join('\n')).toMatch(/read as --cpu-moe/);
    expect(warningsOf(`${GGUF} -ot exps=CPU`).join('\n')).not.toMatch(/not used.*-ot/);
  });

  it('a range of blocks counts its layers; the first matching override wins', () => {
    expect(flagsOf(`${GGUF} -ot "blk\\.([0-9]|1[0-9])\\.ffn_.*_exps=CPU"`)['n-cpu-moe']).toBe(20);
    // Layers 0-5 stay on CUDA0 by the earlier override; the rest of the experts go to the host.
    const w: string[] = [];
    const host = hostExpertLayers(
      ['-ot', 'blk\\.[0-5]\\.ffn_(up|down|gate)_exps=CUDA0', '-ot', 'exps=CPU'],
      w,
    );
    expect(host).toBe(1024 - 6);
    expect(w.join('\n')).toMatch(/other than the first/);
  });

  it('with --n-cpu-moe, both sets of layers; overrides to GPUs alone move nothing', () => {
    expect(
      flagsOf(`${GGUF} --n-cpu-moe 4 -ot "blk\\.([4-7])\\.ffn_.*_exps=CPU"`)['n-cpu-moe'],
    ).toBe(8);
    expect(flagsOf(`${GGUF} -ot "blk\\.[0-9]+\\.ffn_.*_exps=CUDA1"`)['n-cpu-moe']).toBeUndefined();
  });

  it('tensors other than the experts on the CPU are named as not modelled; a bad pattern names the flag', () => {
    expect(warningsOf(`${GGUF} -ot "attn=CPU,exps=CPU"`).join('\n')).toMatch(
      /other than the MoE experts in host RAM are not modelled/,
    );
    expect(() => flagsOf(`${GGUF} -ot "blk\\.(=CPU"`)).toThrow(/--override-tensor: got/);
    expect(() => flagsOf(`${GGUF} -ot exps`)).toThrow(/<tensor name pattern>=<buffer type>/);
  });
});

describe('llama-server lines as published before -fa took a value, and from Windows', () => {
  it('a bare -fa is the older switch (on), and the flag after it is read, with the 25d5b0c5 caveat', () => {
    const line = `${GGUF} -fa --n-cpu-moe 33 -ub 1024`;
    expect(flagsOf(line)['n-cpu-moe']).toBe(33);
    expect(warningsOf(line).join('\n')).toMatch(
      /-fa without a value: read as -fa on .*would read --n-cpu-moe as its value \(https:\/\/github\.com\/ggml-org\/llama\.cpp\/blob\/[0-9a-f]{40}\/common\/arg\.cpp\)/,
    );
    expect(flagsOf(`${GGUF} --flash-attn --n-gpu-layers 20`)['gpu-layers']).toBe(20);
    // ggml-org/llama.cpp#15396: a trailing bare -fa, and -fa before -cmoe (all experts in host RAM).
    expect(flagsOf(`${GGUF} -fa`).framework).toBe('llama.cpp');
    expect(flagsOf(`${GGUF} -fa -cmoe`)['n-cpu-moe']).toBe(100_000);
    expect(warningsOf(`${GGUF} -fa on --n-cpu-moe 2`).join('\n')).not.toMatch(/without a value/);
  });

  it('a cmd.exe / PowerShell line: .\\llama-server.exe with backslash paths (ggml-org/llama.cpp#15253)', () => {
    const win =
      '.\\llama\\llama-server.exe -m ""C:\\Users\\u\\models\\gpt-oss-120b-GGUF\\gpt-oss-120b-MXFP4-00001-of-00002.gguf"" --ctx-size 32000 -ngl 999 --n-cpu-moe 33';
    const f = flagsOf(win);
    expect(f).toMatchObject({
      framework: 'llama.cpp',
      weights: 'mxfp4',
      seq: 32000,
      'n-cpu-moe': 33,
    });
    expect(flagsOf('llama-server.exe -m models\\7B\\ggml-model-q4_k_m.gguf -c 2048').seq).toBe(
      2048,
    );
  });
});

describe("llama-server with Unsloth's Dynamic GGUFs", () => {
  it('UD-Q4_K_XL, by file or -hf tag, reads as q4_k_m with a note, not as 16-bit weights', () => {
    for (const line of [
      'llama-server -m ~/models/Qwen3-Coder-30B-A3B-Instruct-UD-Q4_K_XL.gguf -ngl 99 -c 131072',
      'llama-server -hf unsloth/Qwen3-Coder-30B-A3B-Instruct-GGUF:UD-Q4_K_XL --jinja',
    ]) {
      expect(flagsOf(line).weights, line).toBe('q4_k_m');
      expect(warningsOf(line).join('\n')).toMatch(/UD-Q4_K_XL/);
      expect(warningsOf(line).join('\n')).not.toMatch(/not in the file name/);
    }
  });
});

describe("llama.cpp's chat programs", () => {
  it('llama-cli and llama-mtmd-cli lines read as one llama.cpp context of -c tokens', () => {
    // Unsloth's QwQ-32B guide (docs.unsloth.ai/basics/tutorial-how-to-run-qwq-32b-effectively), its prompt shortened.
    const cli = `./llama.cpp/llama-cli \\
 --model unsloth-QwQ-32B-GGUF/QwQ-32B-Q4_K_M.gguf \\
 --threads 32 \\
 --ctx-size 16384 \\
 --n-gpu-layers 99 \\
 --seed 3407 \\
 --prio 2 \\
 --temp 0.6 \\
 --repeat-penalty 1.1 \\
 --dry-multiplier 0.5 \\
 --min-p 0.0 \\
 --top-k 40 \\
 --top-p 0.95 \\
 -no-cnv \\
 --samplers "top_k;top_p;min_p;temperature;dry;typ_p;xtc" \\
 --prompt "<|im_start|>user\\nCreate a Flappy Bird game in Python.<|im_end|>\\n<|im_start|>assistant\\n<think>\\n"`;
    expect(flagsOf(cli)).toMatchObject({
      framework: 'llama.cpp',
      weights: 'q4_k_m',
      seq: 16384,
      batch: 1,
    });
    const mtmd =
      './llama.cpp/llama-mtmd-cli -hf unsloth/Qwen3-VL-8B-Instruct-GGUF:UD-Q4_K_XL --n-gpu-layers 99 --jinja --flash-attn on --ctx-size 8192';
    expect(flagsOf(mtmd)).toMatchObject({ framework: 'llama.cpp', weights: 'q4_k_m', seq: 8192 });
  });
});

describe('llama-server lines as scripts write them', () => {
  it('IQ4_NL reads as q4_0 (the same 18-byte block), IQ4_XS as q4_0 with a note, not as 16-bit weights', () => {
    const nl = 'llama-server -m Qwen3-8B-IQ4_NL.gguf -c 8192 -ngl 99';
    const xs = 'llama-server -m GLM-4.5-Air-IQ4_XS-00001-of-00002.gguf --gpu-layers 10';
    expect(flagsOf(nl).weights).toBe('q4_0');
    expect(flagsOf(xs).weights).toBe('q4_0');
    expect(warningsOf(xs).join('\n')).toMatch(/IQ4_XS \(4\.25 bits a weight\)/);
  });

  it('a shell arithmetic expansion of literals is its value (bash integer arithmetic)', () => {
    // emk/llama-server-local-model-config GLM-4.5-Air/run.sh: --ctx-size "$(( 32*1024 ))".
    const line = (ctx: string) => `llama-server -m m-Q4_K_M.gguf --ctx-size ${ctx}`;
    expect(flagsOf(line('"$(( 32*1024 ))"')).seq).toBe(32768);
    expect(flagsOf(line('$((64 * 1024))')).seq).toBe(65536);
    expect(flagsOf(line('$(( (1 + 3) * 1000 / 3 ))')).seq).toBe(1333);
  });
});
