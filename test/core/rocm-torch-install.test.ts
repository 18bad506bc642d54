// Training launch folders on an AMD GPU install the ROCm build of the torch they pin: PyTorch's ROCm wheel index
// (--extra-index-url) and the local-version pin; on an NVIDIA GPU the PyPI pin alone.
import { describe, expect, it } from 'vitest';
import { HF_ENGINE } from '../../src/core/engines/hf/trainer.js';
import { buildLaunch } from '../../src/core/launch/index.js';
import {
  TORCH_ROCM_VARIANT,
  torchRequirementLines,
  withRocmTorch,
} from '../../src/core/launch/rocm-torch.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { launchInputOf } from '../helpers/launch.js';

const LORA = { method: 'lora', batch: 1, seq: 2048 };
const CASES: [string, Record<string, unknown>, string][] = [
  [HF_ENGINE, { ...LORA, framework: 'hf' }, 'requirements.txt'],
  ['axolotl', { ...LORA, framework: 'hf' }, 'requirements-axolotl.txt'],
  ['Unsloth', { ...LORA, framework: 'unsloth' }, 'requirements.txt'],
  ['torchtune', { ...LORA, framework: 'torchtune' }, 'requirements.txt'],
  ['litgpt', { ...LORA, framework: 'litgpt' }, 'requirements.txt'],
  [
    'torchtitan',
    { method: 'full', batch: 1, seq: 2048, framework: 'torchtitan' },
    'requirements.txt',
  ],
];

function requirementsOf(
  gpu: string,
  engine: string,
  flags: Record<string, unknown>,
  file: string,
): string {
  const b = buildLaunch(launchInputOf('llama-3.1-8b', gpu, flags));
  const out = b.outputs.find((e) => e.engine === engine);
  if (!out?.ok)
    throw new Error(`${engine} on ${gpu}: ${out && !out.ok ? out.reason : 'no output'}`);
  const f = out.files.find((x) => x.path === file);
  if (!f) throw new Error(`${engine} wrote no ${file}`);
  return String(f.content);
}

describe('ROCm torch in training launch folders', () => {
  for (const [engine, flags, file] of CASES) {
    it(`${engine.split(' ')[0]}: MI300X names PyTorch's ROCm index and pins the ROCm build`, () => {
      const r = requirementsOf('mi300x', engine, flags, file);
      const index = /^--extra-index-url https:\/\/download\.pytorch\.org\/whl\/(rocm[\d.]+)$/m.exec(
        r,
      );
      expect(index).not.toBeNull();
      expect(r).toMatch(
        new RegExp(`^torch==\\d+\\.\\d+\\.\\d+\\+${index![1]!.replace('.', '\\.')}$`, 'm'),
      );
      expect(r).not.toMatch(/^torch==\d+\.\d+\.\d+$/m);
    });
    it(`${engine.split(' ')[0]}: H100 keeps PyPI's torch pin, no ROCm index`, () => {
      const r = requirementsOf('h100-sxm', engine, flags, file);
      expect(r).not.toMatch(/download\.pytorch\.org|rocm/);
      expect(r).toMatch(/^torch==\d+\.\d+\.\d+$/m);
    });
  }

  it('the consumer RDNA 3 card gets the ROCm build too', () => {
    const r = requirementsOf('rx-7900-xtx', 'torchtune', CASES[3]![1], 'requirements.txt');
    expect(r).toMatch(/^torch==2\.6\.0\+rocm6\.2\.4$/m);
  });

  it("torch 2.12 comes from rocm7.2 (its release matrix's newest), torch 2.6 from rocm6.2.4", () => {
    const amd = findGpu('mi355x');
    expect(torchRequirementLines(amd, '2.12.1').slice(1)).toEqual([
      '--extra-index-url https://download.pytorch.org/whl/rocm7.2',
      'torch==2.12.1+rocm7.2',
    ]);
    expect(torchRequirementLines(amd, '2.6.0').at(-1)).toBe('torch==2.6.0+rocm6.2.4');
    expect(torchRequirementLines(findGpu('h100-sxm'), '2.12.1')).toEqual(['torch==2.12.1']);
    expect(() => torchRequirementLines(amd, '2.3.0')).toThrow(/no ROCm wheel variant/);
  });

  it('only the torch line is rewritten; other pins stay', () => {
    const lines = withRocmTorch(findGpu('mi300x'), [
      'torchao==0.10.0',
      'torch==2.6.0',
      'torchdata==0.11.0',
    ]);
    expect(lines[0]).toBe('torchao==0.10.0');
    expect(lines.at(-1)).toBe('torchdata==0.11.0');
    expect(lines).toContain('torch==2.6.0+rocm6.2.4');
  });

  it('every release line the table holds names a ROCm index folder', () => {
    for (const v of Object.values(TORCH_ROCM_VARIANT)) expect(v).toMatch(/^rocm\d+\.\d+(\.\d+)?$/);
  });
});
