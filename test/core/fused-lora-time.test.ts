// The time model reads the adapter list the memory count sums (memory/setup.ts engineLora): on a checkpoint's fused
// linears (Phi-3/Phi-4 qkv_proj and gate_up_proj, modeling_phi3.py at transformers 5.14.1) one A/B pair per module
// where the engine adapts the fused module, a pair per role where its own layers adapt each role (torchtune,
// LitGPT: FrameworkProfile.loraPerRole) or where it loads a re-export with the roles split (Unsloth's model mapper:
// FrameworkProfile.perRoleReexports). LoRA adds r x (in + out) per pair (LoRA §4, arXiv:2106.09685).
import { describe, expect, it } from 'vitest';
import '../../src/core/engines/registry.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { trainableParams } from '../../src/core/memory/setup.js';
import { adapterPathWork } from '../../src/core/time/adapter-path.js';
import { modelFacts } from '../../src/core/time/index.js';
import { countFreeWork, trainWork } from '../../src/core/time/train-work.js';
import { gatherCollectives } from '../../src/core/time/zero-collectives.js';
import { resolveModel } from '../../src/io/load-model.js';
import { emitUnsloth } from '../../src/core/engines/unsloth/launch.js';
import { launchInputOf } from '../helpers/launch.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags } from '../../src/schema/time.js';
import type { Arch } from '../../src/core/model/arch.js';
import type { EstimateOptions } from '../../src/schema/estimate.js';

const R = 16;
const SEQ = 512;
const opts = (framework: string, targets: string, rank = R): EstimateOptions =>
  optionsFromFlags({
    method: 'lora',
    'lora-rank': rank,
    'lora-targets': targets,
    batch: 1,
    seq: SEQ,
    framework,
  });
const memory = (arch: Arch, o: EstimateOptions): number =>
  trainableParams(arch, o, FRAMEWORKS[o.framework], 0);
/** What the time model's optimizer steps: its adapter weights (countFreeWork.trainable). */
const timed = (arch: Arch, o: EstimateOptions): number =>
  countFreeWork(modelFacts(arch), o, timeOptionsFromFlags({}, o)).trainable;
/** One adapter pair per module: r x (in + out), over the layers. */
const pairs = (layers: number, modules: [number, number][], r = R): number =>
  layers * modules.reduce((a, [i, o]) => a + r * (i + o), 0);

const phi4 = resolveModel('phi-4');
// The same checkpoint from a path Unsloth's mapper does not know (no Hugging Face id): loaded as it is, fused.
const phi4Local: Arch = { ...phi4, hfId: null };
// Phi-4: hidden 5120, 40 heads x 128, 10 kv heads, intermediate 17,920, 40 layers (catalogs/models/phi-4.json).
const QKV: [number, number] = [5120, 5120 + 2 * 1280];
const GATE_UP: [number, number] = [5120, 2 * 17920];

describe('time and memory read one adapter list on fused linears', () => {
  it('fused qkv (PEFT on Phi-4, q,v): the time model steps the one qkv_proj pair memory counts', () => {
    const o = opts('hf', 'q,v');
    expect(memory(phi4, o)).toBe(pairs(40, [QKV]));
    expect(timed(phi4, o)).toBe(memory(phi4, o));
  });

  it('fused qkv: the adapters FLOPs are 2 per adapter weight per token forward (memory count)', () => {
    const m = modelFacts(phi4);
    const fwd = (rank: number) => {
      const o = opts('hf', 'q,v', rank);
      return trainWork(m, o, timeOptionsFromFlags({}, o)).fwdGemmFlops;
    };
    // Doubling the rank adds the rank-16 adapters once more: 2 x tokens x their weights.
    expect(fwd(2 * R) - fwd(R)).toBeCloseTo(2 * SEQ * memory(phi4, opts('hf', 'q,v')), -3);
  });

  it('all seven roles on PEFT: qkv_proj, o_proj, gate_up_proj, down_proj pairs, time as memory', () => {
    const o = opts('hf', 'q,k,v,o,gate,up,down');
    const fused = pairs(40, [QKV, [5120, 5120], GATE_UP, [17920, 5120]]);
    expect(memory(phi4, o)).toBe(fused);
    expect(timed(phi4, o)).toBe(fused);
  });

  it('engines that adapt each role (torchtune, LitGPT) follow per role in time as in memory', () => {
    const perRole = pairs(40, [
      [5120, 5120],
      [5120, 1280],
    ]);
    for (const fw of ['torchtune', 'litgpt']) {
      const o = opts(fw, 'q,v');
      expect(memory(phi4, o)).toBe(perRole);
      expect(timed(phi4, o)).toBe(perRole);
    }
  });

  it('the LoRA path runs once per fused module, once per role where the roles are apart', () => {
    const path = (arch: Arch, fw: string, targets: string) => {
      const o = opts(fw, targets);
      const w = { lora: true, tp: 1, tokens: SEQ, layersHere: 40 };
      return adapterPathWork(modelFacts(arch), o, w, timeOptionsFromFlags({}, o));
    };
    // PEFT on the fused checkpoint: q alone and q,k,v adapt the same one module.
    expect(path(phi4, 'hf', 'q,k,v').fwdOps).toBe(path(phi4, 'hf', 'q').fwdOps);
    expect(path(phi4, 'hf', 'q,k,v').fwdOps).toBeGreaterThan(0);
    // Unsloth on its per-role re-export: three adapted projections, each its own matmul_lora (partial group).
    expect(path(phi4, 'unsloth', 'q,k').fwdOps).toBe(2 * path(phi4, 'unsloth', 'q').fwdOps);
  });

  it("ZeRO-3's gathers take a fused module as one weight and one adapter pair", () => {
    // Every parameter its own collective (a bucket of one element, nothing persistent).
    const b = { prefetch: 1, persistence: 0 };
    const run = { loop: false, hit: 0 };
    const gathers = (fw: string) =>
      gatherCollectives(modelFacts(phi4), opts(fw, 'q,v'), 40, b, run).outside;
    // hf-deepspeed: qkv_proj, o_proj, gate_up_proj, down_proj and qkv_proj's lora_A, lora_B.
    expect(gathers('hf-deepspeed')).toBe(40 * (4 + 2));
    // Per role (torchtune's own layers): seven weights and q's and v's pairs.
    expect(gathers('torchtune')).toBe(40 * (7 + 4));
  });
});

describe('Unsloth loads its per-role re-exports of Phi-3 / Phi-3.5 / Phi-4 (models/mapper.py)', () => {
  it('Phi-4 gate,up,down r 16: the 44,236,800 trainable parameters its GRPO notebook logs', () => {
    // unslothai/notebooks nb/Phi_4_(14B)-GRPO.ipynb: "Fast Llama patching", "Trainable parameters = 44,236,800".
    const o = opts('unsloth', 'gate,up,down');
    expect(memory(phi4, o)).toBe(44_236_800);
    expect(timed(phi4, o)).toBe(44_236_800);
    // A checkpoint the mapper does not rename keeps its fused gate_up_proj: one pair over 2 x 17,920.
    expect(memory(phi4Local, o)).toBe(pairs(40, [GATE_UP, [17920, 5120]]));
    expect(timed(phi4Local, o)).toBe(memory(phi4Local, o));
  });

  it('Phi-4 on all seven roles: the 65,536,000 its conversational notebook logs', () => {
    // nb/Phi_4-Conversational.ipynb: r 16 on q,k,v,o,gate,up,down, "Trainable parameters = 65,536,000".
    expect(memory(phi4, opts('unsloth', 'q,k,v,o,gate,up,down'))).toBe(65_536_000);
  });

  it("the launcher names the re-export's per-role modules (q_proj, gate_proj, ...), not qkv_proj", () => {
    const out = emitUnsloth(
      launchInputOf('phi-4', 'a100-80gb', {
        framework: 'unsloth',
        method: 'qlora',
        'lora-targets': 'q,v,gate,up',
      }),
    );
    if (!out.ok) throw new Error(out.reason);
    const args = JSON.parse(out.files.find((f) => f.path === 'unsloth-args.json')!.content) as {
      get_peft_model: { target_modules: string[] };
    };
    expect(args.get_peft_model.target_modules).toEqual([
      'q_proj',
      'v_proj',
      'gate_proj',
      'up_proj',
    ]);
  });
});
