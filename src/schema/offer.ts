/** On-disk format of catalogs/offers/<provider>.json: a dated list of cloud prices, apart from GPU specs. */
import { z } from 'zod';

const id = z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a lower-case kebab-case id');

/** on-demand and spot are VM/pod rentals; serverless bills per second of work; community is a peer marketplace; reserved is pre-booked capacity. */
export const offerKind = z.enum(['on-demand', 'spot', 'serverless', 'community', 'reserved']);

export const offerSchema = z
  .object({
    id,
    /** Same as the file name the offer lives in. */
    provider: id,
    /** A GPU id from catalogs/gpus/. */
    gpuId: id,
    /** GPUs per rented node or instance (the unit you pay for). */
    gpusPerNode: z.number().int().positive(),
    usdPerGpuHour: z.number().positive(),
    kind: offerKind,
    /** When the price was observed: YYYY-MM or YYYY-MM-DD. */
    asOf: z
      .string()
      .regex(/^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01]))?$/, 'expected YYYY-MM or YYYY-MM-DD'),
    source: z.url({ protocol: /^https?$/ }),
    notes: z.string().optional(),
    /**
     * Where the provider says its machines of this offer share a scale-out network (EFA, InfiniBand, RoCE), so
     * one job may span several. Absent: each machine stands alone (a marketplace host, a single pod), and a
     * rented plan stays within one node.
     */
    clusterNetwork: z.url({ protocol: /^https?$/ }).optional(),
  })
  .strict();

/** One provider file holds an array of offers. */
export const offerFileSchema = z.array(offerSchema);

export type Offer = z.infer<typeof offerSchema>;
export type OfferKind = z.infer<typeof offerKind>;
