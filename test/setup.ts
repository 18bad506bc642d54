// Fail any test that writes to the console (as zod's test setup does): output belongs to commands.
import fc from 'fast-check';
import { afterEach, vi } from 'vitest';
import { loadLaunchers } from '../src/core/engines/registry.js';
// The published checkpoints of catalogs/checkpoints.json, which launch and the planner look formats up in.
import '../src/io/load-catalog.js';

// Every property test is reproducible (VRAMPLAN_FC_SEED explores other seeds); files that set their own keep theirs.
fc.configureGlobal({ seed: Number(process.env.VRAMPLAN_FC_SEED ?? 20261205) });

// The built-in engines, launchers included (commands load these on demand; tests call the core directly).
await loadLaunchers();

const calls: string[] = [];
for (const level of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  vi.spyOn(console, level).mockImplementation((...args: unknown[]) => {
    calls.push(`${level}: ${args.map(String).join(' ')}`);
  });
}
afterEach(() => {
  if (calls.length > 0) {
    const seen = calls.splice(0);
    throw new Error(`unexpected console output:\n${seen.join('\n')}`);
  }
});
