/** On-disk format of catalogs/circuits/<id>.json: a branch circuit and the load it may carry for hours. */
import { z } from 'zod';

export const circuitSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'expected a lower-case kebab-case id'),
    name: z.string().min(1),
    /** Nominal supply voltage, V (RMS). */
    volts: z.number().positive(),
    /** Rating of the protective device (breaker or plug fuse), A. */
    amps: z.number().positive(),
    /** Share of the rating a continuous (3 h+) load may use: 0.8 under the US NEC 210.20(A) rule. */
    continuousFraction: z.number().gt(0).max(1),
    /** volts × amps × continuousFraction, W at the wall; kept explicit so the file reads on its own. */
    continuousWatts: z.number().positive(),
    source: z.url({ protocol: /^https?$/ }),
    notes: z.string().optional(),
  })
  .strict()
  .refine((c) => Math.abs(c.volts * c.amps * c.continuousFraction - c.continuousWatts) < 0.5, {
    message: 'continuousWatts must equal volts × amps × continuousFraction',
    path: ['continuousWatts'],
  });

export type Circuit = z.infer<typeof circuitSchema>;
