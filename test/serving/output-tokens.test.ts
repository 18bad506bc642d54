// A serving job's outputTokens is the whole job's output: every field of the generated JSON Schema says
// what it is (outputTokens that it is not per request), and a figure below one round of requests is warned
// about on stderr while the report stays as it is.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeFields, SCENARIO_DOCS } from '../../src/schema/scenario-docs.js';
import { scenarioJsonSchema, inferenceJobSchema } from '../../src/schema/scenario.js';
import { outputTokensWarning } from '../../src/schema/serving-job.js';
import { cliBuilt, runCli } from '../helpers/run-cli.js';

describe('scenario.schema.json descriptions', () => {
  it('every field has a description, and every description names a field', () => {
    const schema = scenarioJsonSchema() as Record<string, unknown>;
    const fields = describeFields(structuredClone(schema));
    expect(fields.length).toBeGreaterThan(90);
    const missing: string[] = [];
    const walk = (n: unknown, at: string): void => {
      if (!n || typeof n !== 'object') return;
      const o = n as Record<string, unknown>;
      for (const [k, v] of Object.entries((o.properties ?? {}) as Record<string, unknown>)) {
        if (typeof (v as { description?: unknown }).description !== 'string')
          missing.push(`${at}.${k}`);
        walk(v, `${at}.${k}`);
      }
      for (const b of [...((o.anyOf ?? []) as unknown[]), ...((o.oneOf ?? []) as unknown[])])
        walk(b, at);
      walk(o.items, `${at}[]`);
    };
    walk(schema, '');
    expect(missing).toEqual([]);
    expect(Object.keys(SCENARIO_DOCS).filter((k) => !fields.includes(k))).toEqual([]);
  });

  it('outputTokens says it is the whole job, not per request, in the schema and scenarios/README.md', () => {
    const doc = SCENARIO_DOCS['job.inference.outputTokens']!;
    expect(doc).toMatch(/WHOLE job, all requests together/);
    expect(doc).toMatch(/not per request/);
    const readme = readFileSync(join(import.meta.dirname, '../../scenarios/README.md'), 'utf8');
    expect(readme).toMatch(/outputTokens.*whole job/);
  });
});

describe('outputTokens below one round of requests', () => {
  const job = (o: Record<string, unknown>) =>
    inferenceJobSchema.parse({
      kind: 'inference',
      context: 2048,
      promptTokens: 1024,
      concurrency: 64,
      ...o,
    });

  it('warns at 256 with 64 users (a per-request figure), naming both readings', () => {
    expect(outputTokensWarning(job({ outputTokens: 256 }))).toBe(
      "job.outputTokens is 256, the output of the whole job (all requests together), less than one round of requests (concurrency 64 × 1,024 tokens each = 65,536); time and cost are for 256 tokens in all. For 256 tokens per request, set job.context to promptTokens + 256 and job.outputTokens to the job's total",
    );
  });

  it('is quiet from one round up, and for every shipped serving scenario', () => {
    expect(outputTokensWarning(job({ outputTokens: 65_536 }))).toBeNull();
    expect(outputTokensWarning(job({ outputTokens: 65_535 }))).not.toBeNull();
    // Default prompt: half the context, so 1 user × 2,048 generated tokens.
    expect(
      outputTokensWarning(
        job({ promptTokens: undefined, concurrency: 1, context: 4096, outputTokens: 2048 }),
      ),
    ).toBeNull();
    expect(
      outputTokensWarning(
        job({ promptTokens: undefined, concurrency: 1, context: 4096, outputTokens: 2047 }),
      ),
    ).not.toBeNull();
  });

  it('plan prints the warning on stderr and the report as before on stdout', () => {
    expect(cliBuilt()).toBe(true);
    const dir = mkdtempSync(join(tmpdir(), 'vramplan-output-tokens-'));
    const base = readFileSync(
      join(import.meta.dirname, '../../scenarios/serve-8b-64-users-24gb.yaml'),
      'utf8',
    );
    const file = join(dir, 'per-request.yaml');
    writeFileSync(file, base.replace(/outputTokens: \d+/, 'outputTokens: 256'));
    const r = runCli(['plan', file, '--no-tui', '--top', '1']);
    expect(r.status).toBe(0);
    expect(r.stderr).toBe(`warning: ${file}: ${outputTokensWarning(job({ outputTokens: 256 }))}\n`);
    expect(r.stdout).toMatch(/^Llama-3.1-8B for 64 concurrent users/);
    const shipped = runCli([
      'plan',
      'scenarios/serve-8b-64-users-24gb.yaml',
      '--no-tui',
      '--top',
      '1',
    ]);
    expect(shipped.stderr).toBe('');
  });
});
