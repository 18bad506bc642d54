/**
 * fp32 weights under bf16 compute (the Trainer's `dtype: float32` with bf16 autocast) have no axolotl form:
 * axolotl loads the model in bf16 whenever `bf16: true` (resolve_dtype) and its FSDP2 preparation drops
 * Accelerate's fp32 upcast (axolotl-ai-cloud/axolotl@067b021), so the launcher writes no axolotl.yaml for such a
 * plan and says why, instead of one that runs, and reads back as, bf16 weights.
 */
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';

const outputsOf = (flags: Record<string, unknown>, gpus = '8') =>
  buildLaunch(
    launchInputOf('llama-3.1-8b', 'h100-sxm', {
      method: 'full',
      gpus,
      framework: gpus === '1' ? 'hf-trainer' : 'hf-fsdp',
      ...(gpus === '1' ? {} : { zero: '3' }),
      ...flags,
    }),
  );

const axolotlOf = (b: ReturnType<typeof buildLaunch>) =>
  b.outputs.find((e) => e.engine === 'axolotl')!;
const fileOf = (b: ReturnType<typeof buildLaunch>, path: string) =>
  b.files.find((f) => f.path === path)?.content;

describe('axolotl and fp32 weights', () => {
  it('FSDP full fine-tune, fp32 weights, bf16 compute: no axolotl.yaml, the reason cites axolotl; hf-args.json keeps float32', () => {
    const b = outputsOf({ weights: 'fp32' });
    const ax = axolotlOf(b);
    expect(ax.ok).toBe(false);
    if (ax.ok) return;
    expect(ax.reason).toMatch(/^axolotl cannot load fp32 weights with bf16 compute/);
    expect(ax.reason).toContain('resolve_dtype in src/axolotl/utils/config/__init__.py');
    expect(ax.reason).toContain('axolotl-ai-cloud/axolotl@067b021');
    expect(fileOf(b, 'axolotl.yaml')).toBeUndefined();
    expect(JSON.parse(fileOf(b, 'hf-args.json')!)).toMatchObject({
      model_init_kwargs: { dtype: 'float32' },
      sft_config: { bf16: true },
    });
  });

  it('one GPU: the same (the load dtype follows bf16 without FSDP too)', () => {
    expect(axolotlOf(outputsOf({ weights: 'fp32' }, '1')).ok).toBe(false);
  });

  it('what axolotl can express is still written: bf16 weights, fp32 weights with fp32 compute', () => {
    const bf16 = outputsOf({});
    expect(axolotlOf(bf16).ok).toBe(true);
    expect(fileOf(bf16, 'axolotl.yaml')).toMatch(/^bf16: true$/m);
    const fp32 = outputsOf({ weights: 'fp32', compute: 'fp32' });
    expect(axolotlOf(fp32).ok).toBe(true);
    expect(fileOf(fp32, 'axolotl.yaml')).toMatch(/^bf16: false$/m);
    expect(fileOf(fp32, 'axolotl.yaml')).toMatch(/^fp16: false$/m);
  });
});
