// Structural validation: TP splits heads (KV heads split or replicated), PP <= layers, context <= positions.
import { describe, expect, it } from 'vitest';
import { archFromHfConfig } from '../../src/core/model/index.js';
import { maxContext, scenarioStructureIssue, structureIssue } from '../../src/core/model/index.js';
import { resolveModel } from '../../src/io/load-model.js';
import { parseScenario } from '../../src/io/load-scenario.js';
import { defaultOptions } from '../../src/schema/estimate.js';

const o = defaultOptions('full');

describe('structure', () => {
  const llama = resolveModel('llama-2-7b');
  it('--tp must divide the attention heads; KV heads split or replicate', () => {
    expect(structureIssue(llama, { ...o, tp: 5, gpus: 5 })).toMatchObject({ flag: 'tp', value: 5 });
    expect(structureIssue(llama, { ...o, tp: 8, gpus: 8 })).toBeNull();
    const gqa = resolveModel('llama-3.1-8b'); // 32 heads, 8 KV heads
    expect(structureIssue(gqa, { ...o, tp: 16, gpus: 16 })).toBeNull(); // KV heads replicated
    expect(structureIssue(gqa, { ...o, tp: 3, gpus: 3 })?.allowed).toMatch(/8 KV heads/);
  });
  it('--pp at most the layers, --seq at most the positions', () => {
    expect(structureIssue(llama, { ...o, pp: 33, gpus: 33 })).toMatchObject({ flag: 'pp' });
    expect(structureIssue(llama, { ...o, seq: 4097 })).toMatchObject({
      flag: 'seq',
      allowed: expect.stringMatching(/at most 4096/),
    });
  });
  it('a rope-scaled length the config declares extends the allowed context', () => {
    const cfg = {
      model_type: 'llama',
      hidden_size: 256,
      intermediate_size: 512,
      num_hidden_layers: 2,
      num_attention_heads: 4,
      vocab_size: 1000,
      max_position_embeddings: 4096,
      rope_scaling: { type: 'linear', factor: 4 },
    };
    const a = archFromHfConfig(cfg, { id: 'x', hfId: null });
    expect(maxContext(a)).toBe(16384);
    expect(structureIssue(a, { ...o, seq: 16384 })).toBeNull();
  });
  it('a scenario context beyond the positions names job.seq', () => {
    const s = parseScenario(
      'x.yaml',
      'name: x\nmodel: llama-2-7b\njob: { kind: fine-tune, seq: 8192, globalBatch: 8, datasetTokens: 1000 }\n',
    );
    expect(scenarioStructureIssue(llama, s)).toMatchObject({ field: 'job.seq', value: 8192 });
  });
  it('bad quality and host RAM values name the field', () => {
    const base = 'name: x\nmodel: gpt2\njob: { kind: inference }\n';
    expect(() => parseScenario('x.yaml', `${base}quality: best\n`)).toThrow(
      /^x\.yaml: .*"exact"\|"near"\|"lossy" \(got "best"\) → at quality$/,
    );
    expect(() => parseScenario('x.yaml', `${base}hardware: { hostRamGiB: -1 }\n`)).toThrow(
      /→ at hardware\.hostRamGiB$/,
    );
  });
});
