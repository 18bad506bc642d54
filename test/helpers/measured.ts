/** The JSON the scripts under scripts/measure/ wrote, read by the tests that hold the model to it. */
import { readFileSync } from 'node:fs';

const readJson = (url: URL): unknown => JSON.parse(readFileSync(url, 'utf8'));

/** A measurement the calibration cites: calibration/measured/NAME. */
export const readMeasured = (name: string): unknown =>
  readJson(new URL(`../../calibration/measured/${name}`, import.meta.url));

/** A measurement only the tests read: test/fixtures/measure/NAME. */
export const readMeasureFixture = (name: string): unknown =>
  readJson(new URL(`../fixtures/measure/${name}`, import.meta.url));
