/**
 * GRPO's starting learning rate from each engine's own recipe: in the TRL and axolotl files GRPOConfig's default
 * (1e-6) for a full fine-tune and ten times it (1e-5) for adapters, TRL's PEFT guide's GRPO rates
 * (docs/source/peft_integration.md at v1.9.0); Unsloth's GRPO notebooks' 5e-6 in Unsloth's; SFT keeps its rates.
 * Each is named in the launch folder's notes.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';

const grpo = { method: 'lora', objective: 'grpo', generations: 8, batch: 8, 'grad-accum': 1 };
const filesOf = (flags: Record<string, unknown>) => {
  const b = buildLaunch(launchInputOf('qwen2.5-7b', 'h100-sxm', flags, { gradAccum: 1 }));
  return {
    files: Object.fromEntries(b.files.map((f) => [f.path, f.content])),
    notes: b.outputs.flatMap((o) => (o.ok ? o.notes : [])),
  };
};

describe('GRPO learning rate', () => {
  it("TRL's train.py and axolotl: TRL's LoRA rate 1e-5 for adapters, GRPOConfig's 1e-6 full, named in the notes", () => {
    const lora = filesOf({ ...grpo, framework: 'hf-trainer' });
    const args = JSON.parse(lora.files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.grpo_config!.learning_rate).toBe(1e-5);
    expect((parse(lora.files['axolotl.yaml']!) as Record<string, unknown>).learning_rate).toBe(
      1e-5,
    );
    expect(lora.notes.some((n) => n.startsWith("learning_rate 1e-5: TRL's GRPO LoRA rate"))).toBe(
      true,
    );
    const full = filesOf({
      ...grpo,
      method: 'full',
      optimizer: 'adamw-8bit',
      checkpointing: 'full',
      framework: 'hf-trainer',
    });
    const fullArgs = JSON.parse(full.files['hf-args.json']!) as Record<
      string,
      Record<string, unknown>
    >;
    expect(fullArgs.grpo_config!.learning_rate).toBe(1e-6);
    expect(full.notes.some((n) => n.startsWith('learning_rate 1e-6: TRL GRPOConfig'))).toBe(true);
  });

  it("Unsloth: its GRPO notebooks' 5e-6", () => {
    const { files, notes } = filesOf({ ...grpo, framework: 'unsloth' });
    const args = JSON.parse(files['unsloth-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.grpo_config!.learning_rate).toBe(5e-6);
    expect(notes.some((n) => n.startsWith("learning_rate 5e-6: Unsloth's GRPO notebooks"))).toBe(
      true,
    );
  });

  it('SFT LoRA keeps the QLoRA paper rate (2e-4)', () => {
    const { files } = filesOf({ method: 'lora', framework: 'hf-trainer' });
    const args = JSON.parse(files['hf-args.json']!) as Record<string, Record<string, unknown>>;
    expect(args.sft_config!.learning_rate).toBe(2e-4);
  });
});
