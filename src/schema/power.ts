/** Wall-power constants: 80 PLUS PSU efficiency tiers and typical non-GPU system draw (docs/reference/power.md §3-4). */
import { z } from 'zod';

export const psuTier = z.enum(['80plus', 'bronze', 'silver', 'gold', 'platinum', 'titanium']);
export type PsuTier = z.infer<typeof psuTier>;

/** Minimum efficiency (AC→DC, 0-1) at 10/20/50/100 % of rated load; null where the tier sets none. */
export interface PsuEfficiency {
  readonly at10: number | null;
  readonly at20: number;
  readonly at50: number;
  readonly at100: number;
}

/** 80 PLUS minimums, 115 V internal non-redundant (North American desktop PSUs). */
export const PSU_EFFICIENCY_115V = {
  // https://www.maketecheasier.com/80-plus-power-supply-ratings/ ; Silver at 100 % given there as 87 %, program value 85 % (docs/reference/power.md)
  source: 'https://www.maketecheasier.com/80-plus-power-supply-ratings/',
  verified: true,
  tiers: {
    '80plus': { at10: null, at20: 0.8, at50: 0.8, at100: 0.8 },
    bronze: { at10: null, at20: 0.82, at50: 0.85, at100: 0.82 },
    silver: { at10: null, at20: 0.85, at50: 0.88, at100: 0.85 },
    gold: { at10: null, at20: 0.87, at50: 0.9, at100: 0.87 },
    platinum: { at10: null, at20: 0.9, at50: 0.92, at100: 0.89 },
    titanium: { at10: 0.9, at20: 0.92, at50: 0.94, at100: 0.9 },
  } satisfies Record<PsuTier, PsuEfficiency>,
} as const;

/** 80 PLUS minimums, 230 V EU internal: recalled in docs/reference/power.md, not re-fetched; base tier has no separate 230 V EU row there. */
export const PSU_EFFICIENCY_230V_EU = {
  source: 'https://en.wikipedia.org/wiki/80_Plus',
  verified: false,
  tiers: {
    bronze: { at10: null, at20: 0.85, at50: 0.88, at100: 0.85 },
    silver: { at10: null, at20: 0.87, at50: 0.9, at100: 0.87 },
    gold: { at10: null, at20: 0.9, at50: 0.92, at100: 0.89 },
    platinum: { at10: null, at20: 0.92, at50: 0.94, at100: 0.9 },
    titanium: { at10: 0.9, at20: 0.94, at50: 0.96, at100: 0.94 },
  } satisfies Record<Exclude<PsuTier, '80plus'>, PsuEfficiency>,
} as const;

/** A sustained DC draw in W: typical value for planning plus the observed range. */
export interface DrawW {
  readonly typicalW: number;
  readonly minW: number;
  readonly maxW: number;
  readonly source: string;
  readonly verified: boolean;
}

/** Non-GPU draw under a training load, DC watts; typical values are the ones docs/reference/power.md's worked examples use. */
export const SYSTEM_DRAW_W = {
  // Ryzen 9 7950X PPT 230 W / Core i9 PL2 253 W: vendor specs, recalled in docs/reference/power.md
  desktopCpu: {
    typicalW: 230,
    minW: 150,
    maxW: 250,
    source:
      'https://www.thefpsreview.com/2020/10/22/puget-systems-tests-four-blower-style-geforce-rtx-3090-cards-in-a-single-workstation-1717-watt-peak-power-draw/',
    verified: false,
  },
  // Threadripper 7000 / Xeon W-3400 class, TDP 350 W; TDP is not actual draw
  hedtCpu: {
    typicalW: 280,
    minW: 200,
    maxW: 350,
    source: 'https://visualfoodie.com/how-much-power-does-an-amd-threadripper-use',
    verified: false,
  },
  // motherboard, chipset, RAM, NVMe, fans, pump: rule of thumb (an old chipset alone measured 69 W)
  platform: {
    typicalW: 100,
    minW: 50,
    maxW: 150,
    source: 'https://www.anandtech.com/show/2624/debunking-power-supply-myths',
    verified: false,
  },
  // HEDT platform default of docs/reference/power.md's planner formula (150 W)
  hedtPlatform: {
    typicalW: 150,
    minW: 50,
    maxW: 150,
    source: 'https://www.anandtech.com/show/2624/debunking-power-supply-myths',
    verified: false,
  },
} as const satisfies Record<string, DrawW>;
