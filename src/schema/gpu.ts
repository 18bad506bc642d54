/** On-disk format of catalogs/gpus/<id>.json: one GPU SKU, keys carry their units. */
import { z } from 'zod';

/** Lower-case kebab id; also the file name (h100-sxm.json). */
export const catalogId = z
  .string()
  .regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a lower-case kebab-case id');

/** A source entry: a URL, optionally followed by a short description of what it shows. */
export const sourceUrl = z.url({ protocol: /^https?$/ });
export const sourceText = z.string().regex(/https?:\/\/\S+/, 'expected text that contains a URL');

/** Dense tensor throughput in TFLOPS (1e12 FLOP/s), FP32 accumulate; null where unsupported or unpublished. */
export const tflopsSchema = z
  .object({
    bf16: z.number().positive().nullable(),
    fp16: z.number().positive().nullable(),
    fp8: z.number().positive().nullable(),
    fp32: z.number().positive().nullable(),
  })
  .strict();

export const interconnectSchema = z
  .object({
    /** Host link, e.g. "PCIe 4.0 x16". */
    pcie: z.string().min(1),
    /** GPU-to-GPU fabric, total bidirectional GB/s (NVLink; Infinity Fabric on AMD Instinct); null if none. */
    nvlinkGBps: z.number().positive().nullable(),
    /** Direct GPU-to-GPU memory access (P2P) works with the stock driver. */
    p2p: z.boolean(),
    /**
     * A measured all-reduce over `ranks` GPUs of one node on this fabric (the collective library's all_reduce_perf with
     * graphs, or the serving engines' own all-reduce kernel where that is what they run at these sizes): the time of
     * one all-reduce, microseconds, at each message size, bytes (ascending), and where it was measured. Absent: the
     * time model's latency plus the fabric's bus rate.
     */
    allReduce: z
      .object({
        ranks: z.number().int().min(2),
        bytes: z.array(z.number().positive()).min(2),
        microseconds: z.array(z.number().positive()).min(2),
        source: sourceText,
      })
      .strict()
      .refine((a) => a.bytes.length === a.microseconds.length, 'one time per message size')
      .refine((a) => a.bytes.every((b, i) => i === 0 || b > a.bytes[i - 1]!), 'ascending sizes')
      .optional(),
  })
  .strict();

/** Where memoryMiB comes from: nvidia-smi total, CUDA totalGlobalMem, a sibling SKU with the same memory, or marketed GB. */
export const memoryBasis = z.enum(['nvidia-smi', 'cuda', 'sibling', 'marketed']);

export const gpuSchema = z
  .object({
    id: catalogId,
    name: z.string().min(1),
    vendor: z.enum(['nvidia', 'amd', 'apple']),
    category: z.enum(['consumer', 'workstation', 'datacenter', 'apple']),
    /** Other names accepted by --gpu (case-insensitive); unique across the catalog. */
    aliases: z.array(catalogId),
    /** Exact device names nvidia-smi prints for this SKU (for detection). */
    nvidiaSmiNames: z.array(z.string().min(1)).optional(),
    architecture: z.string().min(1),
    /** CUDA compute capability ("8.9"), or the gfx target on AMD; null on Apple. */
    computeCapability: z.string().nullable(),
    /** Marketed capacity in decimal GB. */
    memoryGB: z.number().positive(),
    /** Total device memory in MiB (2^20 B) as nvidia-smi reports it; see memoryMiBBasis. */
    memoryMiB: z.number().int().positive(),
    memoryMiBBasis: memoryBasis,
    memoryType: z.string().min(1),
    /** Peak memory bandwidth, decimal GB/s. */
    memoryBandwidthGBps: z.number().positive(),
    /** L2 cache in MiB, from the vendor's whitepaper (optional: read where a kernel's reuse depends on it). */
    l2CacheMiB: z.number().positive().optional(),
    /**
     * Streaming multiprocessors (NVIDIA; the spec's CUDA cores over the FP32 lanes of an SM), with its source in
     * `sources`: with the FP32 rate it gives the SM clock (time/hardware.ts GpuRates.smClock). Absent: not known.
     */
    sms: z.number().int().positive().optional(),
    /**
     * false where the catalog's FP32 rate over `sms` does not give the SM clock (a rate the vendor capped or quoted
     * apart from the SM count; the reason in `notes`): the card's SMs count kernel programs, its clock stays unknown
     * (time/hardware.ts GpuRates.smClock absent). Absent: the FP32 rate gives the clock.
     */
    smClockFromFp32: z.literal(false).optional(),
    /**
     * Compute units (AMD), with their source in `sources`: how many of a kernel's programs run at once
     * (time/hardware.ts GpuRates.cus). Absent: not known.
     */
    computeUnits: z.number().int().positive().optional(),
    tflops: tflopsSchema,
    supportsBf16: z.boolean(),
    supportsFp8: z.boolean(),
    supportsFlashAttention2: z.boolean(),
    /**
     * 16-bit torch matmul TFLOPS measured on this card at shape factor 1 (square matmuls of 4096-10240, each divided
     * by time/shape.ts shapeFactor; the source is in `sources`). Where present the time model holds the card's GEMMs at
     * this rate instead of the power-wall estimate (time/hardware.ts).
     */
    gemm16MeasuredTflops: z.number().positive().optional(),
    /**
     * bf16 torch matmul TFLOPS measured on a card without bf16 tensor cores (supportsBf16 false), at shape factor 1
     * where the shape is given (the source is in `sources`): cuBLAS runs bf16 there on CUDA cores. Absent: the time
     * model takes the fp32 CUDA-core rate (time/hardware.ts bf16Rate).
     */
    gemmBf16EmulatedTflops: z.number().positive().optional(),
    /** Board power (TDP/TBP) in W; null where the vendor publishes none (Apple SoCs). */
    boardPowerW: z.number().positive().nullable(),
    interconnect: interconnectSchema,
    /** CPU and GPU share one memory pool (Apple silicon). */
    unifiedMemory: z.boolean(),
    formFactor: z.string().optional(),
    launchYear: z.number().int().min(2010).max(2100),
    launchPriceUsd: z.number().positive().nullable(),
    /** When the specs were written from `source` (YYYY-MM or YYYY-MM-DD; notes say whether the page was fetched); newer entries carry it. */
    specsAsOf: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/, 'expected YYYY-MM or YYYY-MM-DD')
      .optional(),
    source: sourceUrl,
    sources: z.array(sourceText).optional(),
    notes: z.string().optional(),
  })
  .strict();

export type Gpu = z.infer<typeof gpuSchema>;
export type GpuTflops = z.infer<typeof tflopsSchema>;
export type GpuInterconnect = z.infer<typeof interconnectSchema>;
export type MemoryBasis = z.infer<typeof memoryBasis>;
