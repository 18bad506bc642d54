// torchtune.yaml names the tokenizer and weight files torchtune's own v0.6.1 recipe for the model reads
// (fixture: test/fixtures/torchtune/v0.6.1-checkpoints.json, extracted from the tag's recipes/configs).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { buildEstimate } from '../../src/core/estimate.js';
import { engineOf, onEngine } from '../../src/core/engines/index.js';
import { TUNE_MODELS } from '../../src/core/engines/torchtune/components.js';
import { emitTorchtune, torchtuneBlocker } from '../../src/core/engines/torchtune/launch.js';
import type { LaunchInput } from '../../src/core/launch/index.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { resolveModel } from '../../src/io/load-model.js';
import { optionsFromFlags } from '../../src/schema/flags.js';

interface Expected {
  config: string;
  checkpointer: string;
  tokenizer: string;
  files: string[];
}
const FIXTURE = JSON.parse(
  readFileSync(new URL('../fixtures/torchtune/v0.6.1-checkpoints.json', import.meta.url), 'utf8'),
) as { models: Record<string, Expected> };

function input(model: string, flags: Record<string, unknown>): LaunchInput {
  const arch = resolveModel(model);
  const asked = optionsFromFlags({ framework: 'torchtune', ...flags });
  const options = onEngine(asked, engineOf(asked));
  const gpu = findGpu('h100-sxm');
  return {
    arch,
    options,
    gpu,
    gradAccum: 1,
    powerLimitW: null,
    estimate: buildEstimate(arch, options, gpu),
    modelRef: arch.hfId ?? model,
  };
}

/** The files torchtune's checkpointer opens: checkpoint_dir joined with each name (filename_format expanded as FormattedCheckpointFiles.build_checkpoint_filenames). */
function opened(ck: Record<string, unknown>): string[] {
  const files = ck.checkpoint_files as string[] | { filename_format: string; max_filename: string };
  const names = Array.isArray(files)
    ? files
    : Array.from({ length: Number(files.max_filename) }, (_, i) => {
        const args = [String(i + 1).padStart(files.max_filename.length, '0'), files.max_filename];
        return files.filename_format.replace(/\{\}/g, () => args.shift()!);
      });
  return names.map((n) => `${String(ck.checkpoint_dir)}/${n}`);
}

describe('torchtune checkpoint files', () => {
  const ids = Object.keys(TUNE_MODELS);
  it.each(ids)('%s: tokenizer and shards as torchtune v0.6.1 recipe reads them', (id) => {
    const x = input(id, { method: 'lora', gpus: 1 });
    const expected = FIXTURE.models[id];
    if (!expected) {
      // No torchtune recipe names its files: the launcher refuses rather than guess a shard count.
      expect(torchtuneBlocker(x)).toMatch(/no recipe config naming the checkpoint files/);
      return;
    }
    const out = emitTorchtune(x);
    if (!out.ok) throw new Error(out.reason);
    const doc = parse(out.files.find((f) => f.path === 'torchtune.yaml')!.content) as Record<
      string,
      Record<string, unknown>
    >;
    const root = `./models/${id}`;
    expect(doc.tokenizer!.path).toBe(`${root}/${expected.tokenizer}`);
    expect(doc.checkpointer!._component_).toBe(expected.checkpointer);
    expect(opened(doc.checkpointer!)).toEqual(expected.files.map((f) => `${root}/${f}`));
  });

  it('Llama-3.1-8B: tokenizer under original/, four safetensors shards', () => {
    const out = emitTorchtune(input('llama-3.1-8b', { method: 'full', gpus: 2, zero: 3 }));
    if (!out.ok) throw new Error(out.reason);
    const doc = parse(out.files[0]!.content) as Record<string, Record<string, unknown>>;
    expect(doc.tokenizer!.path).toBe('./models/llama-3.1-8b/original/tokenizer.model');
    expect(opened(doc.checkpointer!)).toHaveLength(4);
    expect(opened(doc.checkpointer!)[3]).toBe(
      './models/llama-3.1-8b/model-00004-of-00004.safetensors',
    );
  });
});

describe('torchtune LoRA builder keys', () => {
  // `tune validate` at v0.6.1 binds the model block to the builder: Gemma's builders take no
  // apply_lora_to_output (the output projection is the tied embedding).
  const modelOf = (id: string): Record<string, unknown> => {
    const out = emitTorchtune(input(id, { method: 'qlora', weights: 'nf4', gpus: 1 }));
    if (!out.ok) throw new Error(out.reason);
    return (parse(out.files[0]!.content) as { model: Record<string, unknown> }).model;
  };
  it('Gemma and Gemma 2: no apply_lora_to_output; Llama keeps it', () => {
    expect(modelOf('gemma-2-9b')).not.toHaveProperty('apply_lora_to_output');
    expect(modelOf('gemma-2b')).not.toHaveProperty('apply_lora_to_output');
    expect(modelOf('llama-3.1-8b').apply_lora_to_output).toBe(false);
  });
  it('an lm_head target on Gemma is refused, not dropped', () => {
    const x = input('gemma-2-9b', {
      method: 'qlora',
      weights: 'nf4',
      gpus: 1,
      'lora-targets': 'q,v,lm_head',
    });
    expect(torchtuneBlocker(x)).toMatch(/tied to the embedding/);
  });
});
