/**
 * A data-parallel ring over more than one socket's PCIe cards crosses the inter-socket link, which NCCL's topology model
 * prices at 10 GB/s, 22 GB/s on a PCIe 5.0 card's Sapphire Rapids host (time/pcie-sockets.ts): the group's bus bandwidth
 * is capped there, its latency stays the PCIe ring's, and rings that do not run over PCIe (NVSwitch, Infinity Fabric) or
 * stay under one socket keep their rate.
 */
import { describe, expect, it } from 'vitest';
import { gpuRates } from '../../src/core/time/index.js';
import { dataParallelLink } from '../../src/core/time/train-step.js';
import {
  NCCL_SOCKET_LINK_BPS,
  NCCL_SOCKET_LINK_SRP_BPS,
  PCIE_GPUS_PER_SOCKET,
  socketCappedRing,
  socketLinkBps,
} from '../../src/core/time/pcie-sockets.js';
import { ALLREDUCE_LATENCY_NVLINK, ALLREDUCE_LATENCY_PCIE } from '../../src/core/time/nccl-ring.js';
import { findGpu } from '../../src/io/load-catalog.js';
import { defaultTimeOptions } from '../../src/schema/time.js';

const rates = (gpu: string, n: number) =>
  gpuRates(findGpu(gpu), { ...defaultTimeOptions(n), gpusPerNode: n });
const link = (gpu: string, n: number) =>
  dataParallelLink({ gpus: n, zeroRanks: n, tp: 1, pp: 1 }, rates(gpu, n));

describe('a PCIe ring across two sockets', () => {
  it('caps a ring over more than four cards at the socket link, and no ring under it', () => {
    expect(PCIE_GPUS_PER_SOCKET).toBe(4);
    expect(socketCappedRing(25.6e9, 8, NCCL_SOCKET_LINK_BPS)).toBe(NCCL_SOCKET_LINK_BPS);
    expect(socketCappedRing(25.6e9, 4, NCCL_SOCKET_LINK_BPS)).toBe(25.6e9);
    expect(socketCappedRing(6e9, 8, NCCL_SOCKET_LINK_BPS)).toBe(6e9);
    expect(socketCappedRing(230e9, 8, undefined)).toBe(230e9);
  });

  it('eight workstation and GeForce cards run their gradient ring at the socket link', () => {
    for (const gpu of ['rtx-a6000', 'rtx-3090', 'rtx-4090', 'l40s']) {
      const r = rates(gpu, 8);
      expect(r.socketLink, gpu).toBe(NCCL_SOCKET_LINK_BPS);
      expect(link(gpu, 8).link, gpu).toBe(NCCL_SOCKET_LINK_BPS);
      expect(link(gpu, 8).link, gpu).toBeLessThanOrEqual(NCCL_SOCKET_LINK_BPS);
      // Four cards sit under one socket: the PCIe ring's own rate.
      expect(link(gpu, 4).link, gpu).toBe(rates(gpu, 4).intraMany);
      expect(link(gpu, 8).latency, gpu).toBe(link(gpu, 4).latency);
    }
    expect(link('rtx-a6000', 8).latency).toBe(ALLREDUCE_LATENCY_PCIE);
  });

  it('gives a ring staged through host memory the PCIe latency, not the NVLink one', () => {
    // GeForce cards have no PCIe P2P: NCCL stages the ring through host memory at half the PCIe rate.
    for (const gpu of ['rtx-3090', 'rtx-4090', 'rtx-5090']) {
      for (const n of [2, 4, 8]) {
        const r = rates(gpu, n);
        expect(n <= 2 ? r.peerStaged.pair : r.peerStaged.many, gpu).toBe(true);
        expect(r.intraMany, gpu).toBeLessThan(r.host);
        expect(link(gpu, n).latency, `${gpu} x${n}`).toBe(ALLREDUCE_LATENCY_PCIE);
        expect(link(gpu, n).allReduceLatency, `${gpu} x${n}`).toBe(ALLREDUCE_LATENCY_PCIE);
      }
    }
    // A pair joined by an NVLink bridge keeps the NVLink latency.
    const bridged = dataParallelLink(
      { gpus: 2, zeroRanks: 2, tp: 1, pp: 1 },
      gpuRates(findGpu('rtx-3090'), {
        ...defaultTimeOptions(2),
        gpusPerNode: 2,
        interconnect: 'nvlink',
      }),
    );
    expect(bridged.latency).toBe(ALLREDUCE_LATENCY_NVLINK);
  });

  it('takes a PCIe 5.0 card to sit in a Sapphire Rapids host', () => {
    expect(socketLinkBps('PCIe 5.0 x16')).toBe(NCCL_SOCKET_LINK_SRP_BPS);
    expect(socketLinkBps('PCIe 4.0 x16')).toBe(NCCL_SOCKET_LINK_BPS);
    expect(socketLinkBps('PCIe 3.0 x16')).toBe(NCCL_SOCKET_LINK_BPS);
    for (const gpu of ['rtx-5090', 'rtx-pro-6000-blackwell', 'h100-pcie']) {
      expect(rates(gpu, 8).socketLink, gpu).toBe(NCCL_SOCKET_LINK_SRP_BPS);
      expect(link(gpu, 8).link, gpu).toBeLessThanOrEqual(NCCL_SOCKET_LINK_SRP_BPS);
    }
  });

  it('leaves NVSwitch and Infinity Fabric nodes as they were', () => {
    for (const gpu of ['h100-sxm', 'mi300x']) {
      const r = rates(gpu, 8);
      expect(r.socketLink, gpu).toBeUndefined();
      expect(link(gpu, 8).link, gpu).toBe(r.intraMany);
    }
  });
});

describe('dataParallelLink into a scratch', () => {
  it('writes the answer a fresh call returns into the object passed, for every group shape', () => {
    const out = { link: 0, latency: 0, allReduceLatency: 0 };
    for (const gpu of ['rtx-4090', 'h100-sxm', 'a100-80gb-sxm'])
      for (const [gpus, dp, tp, pp] of [
        [1, 1, 1, 1],
        [2, 2, 1, 1],
        [8, 4, 2, 1],
        [16, 16, 1, 1],
        [32, 8, 2, 2],
      ] as const) {
        const r = gpuRates(findGpu(gpu), { ...defaultTimeOptions(gpus), gpusPerNode: 8 });
        const w = { gpus, zeroRanks: dp, tp, pp };
        const fresh = dataParallelLink(w, r);
        expect(dataParallelLink(w, r, out)).toBe(out);
        expect({ ...out }).toEqual(fresh);
      }
  });
});
