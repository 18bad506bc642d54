// Prints the supported-architecture list; with --write, updates the marked block of docs/architectures.md.
import '../src/core/engines/registry.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { architecturesBlock, withArchitectures } from '../src/core/model/index.js';

const file = join(import.meta.dirname, '..', 'docs', 'architectures.md');
if (process.argv.includes('--write')) {
  const before = readFileSync(file, 'utf8');
  const after = withArchitectures(before);
  if (after !== before) writeFileSync(file, after);
  console.log(
    after === before
      ? 'docs/architectures.md: architectures up to date'
      : 'docs/architectures.md: architectures updated',
  );
} else {
  console.log(architecturesBlock());
}
