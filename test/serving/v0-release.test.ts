// A vLLM V0 row's release (the case's engine_version) picks its host work a decode step (time/v0-host.ts): from v0.6.0
// `_process_model_outputs` runs beside the next forward (vllm-project/vllm#7049), its 0.2 ms a step
// (vllm-project/vllm#6913) out of the serial 4 ms; a 0.5 build, an eager run and a row of unknown release keep it all.
import { describe, expect, it } from 'vitest';
import { caseInputs } from '../../src/commands/validate-throughput.js';
import { estimateTime } from '../../src/core/time/index.js';
import { loadThroughputCases } from '../../src/io/load-calibration.js';
import type { ThroughputCase } from '../../src/schema/calibration.js';

const row = (id: string) => {
  const c = loadThroughputCases('throughput.json').find((x) => x.id === id);
  if (c === undefined) throw new Error(`no row ${id}`);
  return c;
};
const tpot = (c: ThroughputCase) => {
  const { options, time, gpu, arch, facts } = caseInputs(c);
  return estimateTime(arch, options, gpu, time, facts.pool).tpotSeconds ?? 0;
};

describe("a V0 row's release", () => {
  it('the rows carry the release their notes give', () => {
    expect(row('crusoe-l31-8b-bf16-l40s-qps1').engine_version).toBe('0.5.5');
    expect(row('qwen25sb-7b-bf16-a100-vllm063-i1-o2048').engine_version).toBe('0.6.3.post1');
    expect(row('llminfbench-llama3-8b-h100-sxm-tp1-io128-b1').engine_version).toBeUndefined(); // 0.5.x-0.6.1
  });

  it("Qwen2.5-7B on vLLM 0.6.3 decodes 0.2 ms a token faster than the same row read as 0.5.5's build", () => {
    const c = row('qwen25sb-7b-bf16-a100-vllm063-i1-o2048');
    expect(tpot({ ...c, engine_version: '0.5.5' }) - tpot(c)).toBeCloseTo(2e-4, 6);
    expect(tpot({ ...c, engine_version: undefined })).toBe(tpot({ ...c, engine_version: '0.5.5' }));
  });

  it('the crusoe 0.5.5 row keeps all its host work in series; an eager 0.6.3 run (enforce_eager) does too', () => {
    const crusoe = row('crusoe-l31-8b-bf16-l40s-qps1');
    expect(tpot(crusoe)).toBe(tpot({ ...crusoe, engine_version: undefined }));
    const eager = row('qwen25sb-32b-bf16-a100-vllm063-i1-o2048');
    expect(eager.graph_max_batch).toBe(0);
    expect(tpot(eager)).toBe(tpot({ ...eager, engine_version: '0.5.5' }));
  });
});
