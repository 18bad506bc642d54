// The launched torchtune config compiles what the plan compiles: the SFT recipes read cfg.compile (torchtune v0.6.1
// recipes/{full,lora}_finetune_{single_device,distributed}.py: `self._compile = cfg.get("compile", False)`), and the
// time model prices a --compile plan as a compiled step.
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import '../../src/core/engines/registry.js';
import { emitTorchtune } from '../../src/core/engines/torchtune/launch.js';
import { TORCHTUNE_FILE } from '../../src/core/engines/torchtune/launch-folder.js';
import { launchInputOf } from '../helpers/launch.js';

const written = (flags: Record<string, unknown>): Record<string, unknown> => {
  const out = emitTorchtune(launchInputOf('llama-3.1-8b', 'a100-80gb', flags));
  if (!out.ok) throw new Error(out.reason);
  return parse(out.files.find((f) => f.path === TORCHTUNE_FILE)!.content) as Record<
    string,
    unknown
  >;
};

describe('torchtune launch: compile as planned', () => {
  for (const method of ['lora', 'full'] as const)
    for (const gpus of [1, 2])
      it(`${method} on ${gpus} GPU(s): compile follows --compile, and no clip is written`, () => {
        const base = { framework: 'torchtune', method, gpus, ...(gpus > 1 ? { zero: 3 } : {}) };
        expect(written({ ...base, compile: true }).compile).toBe(true);
        expect(written({ ...base, compile: false }).compile).toBe(false);
        // clip_grad_norm null: the recipe clips nothing, as the torchtune profile prices it (no gradClip).
        expect(written(base).clip_grad_norm).toBeNull();
      });
});
