/**
 * A fraction to start a scratch or seed object's number fields with, so that V8 makes them double fields from the
 * first object. A whole number would make small-integer fields, and the first fraction stored in one moves the
 * object to a new map, deoptimizing the code optimized for the old one (`node --trace-deopt`: "wrong map").
 * Not a model figure: nothing reads the value (scratch is written before it is read; seeds are never read).
 */
export const DOUBLE_FIELD = 0.5;
