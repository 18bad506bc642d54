// An encoder transformers maps to a causal class (BERT: BertLMHeadModel, attention causal only with is_decoder set)
// is not planned for the HF training engines, whose train.py writes causal-LM SFT; `estimate` still models it.
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, scratchDir } from '../helpers/run-cli.js';

const scratch = scratchDir('vramplan-encoder-');
afterAll(() => scratch.remove());

describe('encoder-only models on the HF training engines', () => {
  it('plans no causal-LM SFT of BERT, and names why', () => {
    const text = [
      'name: bert on a t4',
      'model: bert-large-uncased',
      'job: { kind: fine-tune, methods: [full, lora], seq: 512, globalBatch: 32, datasetTokens: 50000000 }',
      'hardware: { owned: [ { gpu: t4, count: 1 } ], counts: { min: 1, max: 1 } }',
      'rank: time',
    ].join('\n');
    const r = runCli(['plan', scratch.file('bert.yaml', text), '--json']);
    expect(r.status, r.stderr).toBe(2); // nothing fits

    const out = JSON.parse(r.stdout) as { plans: unknown[]; engines: unknown };
    expect(out.plans).toHaveLength(0);
    const why = JSON.stringify(out.engines);
    for (const e of ['hf-trainer', 'hf-fsdp', 'hf-deepspeed']) expect(why).toContain(e);
    expect(why.match(/attention is bidirectional/g)).toHaveLength(3);
  });

  it('estimate still models BERT on the HF Trainer', () => {
    const r = runCli([
      'estimate',
      '--model',
      'bert-large-uncased',
      '--framework',
      'hf-trainer',
      '--seq',
      '512',
      '--gpu',
      't4',
      '--json',
    ]);
    expect(r.status, r.stderr).toBe(0);
    expect((JSON.parse(r.stdout) as { fits: boolean }).fits).toBe(true);
  });
});
