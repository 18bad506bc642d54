// llama-server splits a model over its own machine's GPUs only (--split-mode, --tensor-split); another machine's GPUs
// join through ggml's RPC backend (tools/rpc/README.md), which the launch folder does not write: a llama.cpp server
// whose GPUs span machines is refused, not written with GPU ids the machine does not have.
import { describe, expect, it } from 'vitest';
import { buildLaunch } from '../../src/core/launch/index.js';
import { launchInputOf } from '../helpers/launch.js';

const flags = {
  method: 'inference',
  framework: 'llama.cpp',
  weights: 'q4_k_m',
  batch: 1,
  seq: 4096,
};

function llamaCpp(pp: number, gpusPerNode: number) {
  const x = launchInputOf('llama-3.1-70b', 'rtx-4090', { ...flags, pp, gpus: pp }, { gpusPerNode });
  return buildLaunch(x).outputs.find((o) => o.engine === 'llama.cpp')!;
}

describe('llama-server over several machines', () => {
  it('is refused, naming the RPC backend it would need', () => {
    const out = llamaCpp(4, 2);
    expect(out.ok).toBe(false);
    expect(out.ok ? '' : out.reason).toMatch(/spans 2 machines.*RPC/);
  });

  it('on one machine of its GPUs writes serve.sh on their ids', () => {
    const out = llamaCpp(4, 4);
    expect(out.ok).toBe(true);
    const sh = out.ok ? String(out.files.find((f) => f.path === 'serve.sh')!.content) : '';
    expect(sh).toContain('CUDA_VISIBLE_DEVICES=0,1,2,3');
  });
});
