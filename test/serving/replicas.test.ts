// Serving replicas share the job's concurrency: dp replicas each serve concurrency / dp, are timed, sized and
// held to the SLO at that share, and serve.sh sizes each server for it.
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { plan } from '../../src/core/plan/index.js';
import { replicaShares } from '../../src/core/plan/replicas.js';
import { launchInputOfPlan } from '../../src/commands/launch-run.js';
import { closeJslpWorkers } from '../../src/solve/index.js';
import { inputOf } from './plan-input.js';
import { serveCommands } from './serve-line.js';

afterAll(() => closeJslpWorkers());

const SEQS_FLAG: Record<string, string> = {
  vllm: '--max-num-seqs',
  sglang: '--max-running-requests',
  'llama.cpp': '-np',
};

describe('replica shares', () => {
  it('every share times its replica count is the concurrency, one share per dividing count', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 512 }), fc.integer({ min: 1, max: 64 }), (c, max) => {
        const shares = replicaShares(c, max);
        expect(shares[0]).toBe(c); // one replica serves all
        for (const s of shares) expect(Number.isInteger(c / s) && c / s <= max).toBe(true);
        const counts = Array.from({ length: Math.min(c, max) }, (_, i) => i + 1);
        expect(shares.length).toBe(counts.filter((d) => c % d === 0).length);
      }),
    );
  });

  it('replicas x per-replica concurrency = the job concurrency, in every plan and its serve.sh', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 48 }), (concurrency) => {
        const input = inputOf('serve-8b-64-users-24gb.yaml', (s) => {
          if (s.job.kind !== 'inference') throw new Error('a serving scenario');
          s.job = { ...s.job, concurrency, slo: undefined, requestsPerSecond: undefined };
          s.hardware = {
            ...s.hardware,
            owned: [{ gpu: 'rtx-4090', count: 4 }],
            counts: { min: 1, max: 4 },
          };
        });
        const r = plan({ ...input, top: 40 });
        expect(r.plans.length).toBeGreaterThan(0);
        for (const p of r.plans) {
          expect(p.choices.dp * p.options.batch).toBe(concurrency);
          expect(p.choices.globalBatch).toBe(concurrency);
        }
        // Four cards hold four replicas of the int4 8B: a concurrency two divides is split over two or more.
        const best = r.plans.find((p) => p.choices.dp > 1) ?? r.plans[0]!;
        if (concurrency % 2 === 0) expect(best.choices.dp).toBeGreaterThan(1);
        const x = launchInputOfPlan(best, input.arch, 'meta-llama/Llama-3.1-8B-Instruct');
        const sh = String(buildLaunch(x).files.find((f) => f.path === 'serve.sh')!.content);
        const servers = serveCommands(sh);
        const flag = SEQS_FLAG[best.choices.engine]!;
        const total = servers.reduce((a, c) => a + Number(c[flag]), 0);
        expect(total).toBe(concurrency);
      }),
      { numRuns: 6, examples: [[32], [7]] },
    );
  });

  it('the 32-user 405B job on 8 x H100: two int4 TP4 servers hold 16 users each and lose to TP8', () => {
    const input = inputOf('serve-405b-fp8-8xh100.yaml', (s) => {
      if (s.job.kind !== 'inference') throw new Error('a serving scenario');
      s.job = { ...s.job, slo: undefined };
      s.rank = 'time';
    });
    const r = plan({ ...input, top: 20 });
    const best = r.plans[0]!;
    expect(best.choices.tp).toBe(8);
    expect(best.options.batch).toBe(32);
    const split = r.plans.find((p) => p.choices.tp === 4 && p.choices.dp === 2);
    expect(split?.options.batch).toBe(16);
    expect(split!.time.tokensPerSecond).toBeLessThan(best.time.tokensPerSecond);
  });
});
