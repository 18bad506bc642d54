/**
 * Files the package ships beside its code (catalogs/, calibration/, scenarios/), found from the package root.
 * The root is the nearest folder above this module that holds package.json, so the same call works from
 * src/io (tsx, tests), from tsc's dist/io and from the bundle, dist/vramplan.cjs (scripts/bundle.mjs).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

let root: string | undefined;

/** The package's root folder (the one holding package.json). */
export function packageRoot(): string {
  if (root !== undefined) return root;
  let dir = dirname(fileURLToPath(import.meta.url));
  while (!existsSync(join(dir, 'package.json'))) {
    const up = dirname(dir);
    if (up === dir)
      throw new Error(`vramplan: no package.json above ${fileURLToPath(import.meta.url)}`);
    dir = up;
  }
  return (root = dir);
}

/** A path inside the package, e.g. `packagePath('catalogs', 'models')`. */
export function packagePath(...parts: string[]): string {
  return join(packageRoot(), ...parts);
}
