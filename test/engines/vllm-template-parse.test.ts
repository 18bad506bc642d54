// vLLM 0.11.0 parses the chat template's Jinja source on every chat request (resolve_chat_template_kwargs), so the
// parse follows the template: rows of a model whose template differs from the one the engine profile timed carry
// the two templates' measured ratio (scripts/measure/vllm_template_parse.py; fixture
// test/fixtures/measure/vllm-template-parse.json), and the frontend scales the parse by it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withEngineDefaults } from '../../src/core/engines/defaults.js';
import { FRAMEWORKS } from '../../src/core/memory/frameworks.js';
import { frontendRequestSeconds } from '../../src/core/time/frontend.js';
import { optionsFromFlags } from '../../src/schema/flags.js';
import { timeOptionsFromFlags, type TimeOptions } from '../../src/schema/time.js';
import { readMeasureFixture } from '../helpers/measured.js';

interface Fixture {
  versions: Record<string, string>;
  template_chars: { qwen3: number; qwen3_instruct: number };
  median_ms: { qwen3: number; qwen3_instruct: number };
  ratio: number;
}
const fixture = readMeasureFixture('vllm-template-parse.json') as Fixture;
interface Row {
  id: string;
  framework: string;
  model_hf_id: string;
  chat_template_parse?: string;
  chat_template_parse_scale?: number;
}
const rows = JSON.parse(
  readFileSync(new URL('../../calibration/throughput.json', import.meta.url), 'utf8'),
) as Row[];

const flags = {
  method: 'inference',
  framework: 'vllm',
  batch: 1000,
  'prompt-tokens': 128,
  seq: 132,
};
const o = withEngineDefaults(optionsFromFlags(flags), flags);
const base = timeOptionsFromFlags(flags, o);
const perRequest = (extra: Partial<TimeOptions>) =>
  frontendRequestSeconds(o, { ...base, ...extra });
const front = FRAMEWORKS.vllm.servingFrontend!;

describe("vLLM 0.11.0's per-request chat-template parse, by template", () => {
  it("was timed on the v0.11.0 wheel: the Instruct-2507 template is shorter and parses faster than Qwen3-14B's", () => {
    expect(fixture.versions.vllm).toBe('0.11.0');
    expect(fixture.template_chars.qwen3_instruct).toBeLessThan(fixture.template_chars.qwen3);
    expect(fixture.ratio).toBeCloseTo(
      fixture.median_ms.qwen3_instruct / fixture.median_ms.qwen3,
      2,
    );
    expect(fixture.ratio).toBeLessThan(1);
  });
  it("the Instruct-2507 rows carry the fixture's ratio, and only rows that parse per request", () => {
    const scaled = rows.filter((r) => r.chat_template_parse_scale !== undefined);
    expect(scaled.length).toBeGreaterThan(0);
    for (const r of scaled) {
      expect(r.chat_template_parse, r.id).toBe('per-request');
      expect(r.framework, r.id).toBe('vllm');
      expect(r.model_hf_id, r.id).toMatch(/^Qwen\/Qwen3-.*Instruct-2507/);
      expect(r.chat_template_parse_scale, r.id).toBe(fixture.ratio);
    }
  });
  it('scales the parse, not the rest of the request', () => {
    const full = perRequest({ chatTemplateParse: true });
    const scaled = perRequest({ chatTemplateParse: true, chatTemplateParseScale: fixture.ratio });
    expect(full - scaled).toBeCloseTo(front.templateParseSeconds * (1 - fixture.ratio), 9);
    expect(perRequest({ chatTemplateParseScale: fixture.ratio })).toBe(perRequest({}));
    expect(perRequest({ chatTemplateParse: true, chatTemplateParseScale: 1 })).toBe(full);
  });
});
