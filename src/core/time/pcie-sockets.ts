/**
 * A data-parallel ring over PCIe cards that spans the host's two CPU sockets. A PCIe server of eight cards hangs four
 * off each socket's root complexes (NVIDIA/nccl#1439: eight RTX 3090 on buses 0x04-0x09 and 0x83-0x88; NVIDIA/nccl-tests#307:
 * eight RTX 4090, four under CPU/0-0 and four under CPU/0-1 joined by a `SYS` path; NVIDIA/nccl#1639: eight RTX 5090 under
 * two Xeon 8480+), so a ring over more than four of them crosses the inter-socket link, where peer-to-peer stops and
 * NCCL routes through host memory. NCCL's own topology model prices that link below a Gen4 x16 slot (24 GB/s in the same
 * model): 10 GB/s for an Intel Xeon Scalable's UPI (`SKL_QPI_BW`), 22 GB/s for Sapphire Rapids' (`SRP_QPI_BW`), 16 GB/s
 * for AMD's (`AMD_BW`), in
 * https://github.com/NVIDIA/nccl/blob/069a3d4f95ca488dc63ba7ae659a2db77942a62e/src/graph/topo.h; its ring search gives every
 * channel the bandwidth of the narrowest link on its path, so the ring's bus bandwidth is at most that link's.
 */

/**
 * Cards of a PCIe server under one CPU socket: four of eight (the three topology dumps above). A data-parallel group of
 * more cards in one node is assumed to span both sockets (calibration/assumed.json; docs/assumptions.md).
 */
export const PCIE_GPUS_PER_SOCKET = 4;

/**
 * The inter-socket link's bandwidth as NCCL's topology model prices it, B/s: `SKL_QPI_BW` (Intel Xeon Scalable's UPI
 * from Skylake, the class NCCL gives every Xeon before Sapphire Rapids), NVIDIA/nccl src/graph/topo.h at 069a3d4. An Intel
 * host is assumed (the 8-card dumps above are Intel Xeon hosts).
 */
export const NCCL_SOCKET_LINK_BPS = 10e9;

/**
 * The same for a Sapphire Rapids host (`SRP_QPI_BW`, topo.h at 069a3d4; topo.cc `ncclTopoGetInterCpuBw` picks it by the
 * CPU model), B/s: the first Xeon with PCIe 5.0 lanes, so the host assumed for PCIe 5.0 cards.
 */
export const NCCL_SOCKET_LINK_SRP_BPS = 22e9;

/**
 * The inter-socket link of the host a card of PCIe generation `pcie` (the catalog's `interconnect.pcie`) is assumed to
 * sit in, B/s: a PCIe 5.0 card in a Sapphire Rapids host, older cards in a Xeon Scalable host of NCCL's Skylake class.
 */
export function socketLinkBps(pcie: string): number {
  const m = /PCIe\s*(\d)/i.exec(pcie);
  return m && Number(m[1]) >= 5 ? NCCL_SOCKET_LINK_SRP_BPS : NCCL_SOCKET_LINK_BPS;
}

/**
 * The bus bandwidth (B/s) of a ring over `ranksInNode` cards of one node whose ring runs over PCIe at `ring` B/s:
 * capped at the inter-socket link once the group spans both sockets. `socketLink` is absent where the ring does not
 * run over PCIe (NVLink, NVSwitch), and the ring is then returned as it is.
 */
export function socketCappedRing(
  ring: number,
  ranksInNode: number,
  socketLink: number | undefined,
): number {
  if (socketLink === undefined || ranksInNode <= PCIE_GPUS_PER_SOCKET) return ring;
  return Math.min(ring, socketLink);
}
