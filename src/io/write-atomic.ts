/** Write a file atomically: temp file in the same folder, then rename; never overwrite without `force`. */
import { existsSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { UserError } from './errors.js';

export function writeAtomic(file: string, content: string, opts: { force?: boolean } = {}): void {
  if (existsSync(file) && !opts.force)
    throw new UserError(`${file}: already exists; not overwriting`, 'pass --force to replace it');
  const tmp = join(dirname(file), `.${basename(file)}.${process.pid}.${Date.now()}.tmp`);
  try {
    writeFileSync(tmp, content, { flag: 'wx' });
    renameSync(tmp, file);
  } catch (e) {
    // force: true ignores ENOENT only; a parent that is a file gives ENOTDIR, which must not mask `e`.
    try {
      rmSync(tmp, { force: true });
    } catch {
      /* report the write error below, not this one */
    }
    if (e instanceof UserError) throw e;
    const code = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    throw new UserError(
      `${file}: cannot write (${code}); expected a writable file path in an existing folder`,
    );
  }
}
