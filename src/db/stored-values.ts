import type { Values } from "../types/spsa.js";

/**
 * Values by name as a UCI-option run stores them: arrays in the run's order of its parameter
 * names (spsa_option_run.parameter_names), a fifteenth of the bytes of objects by name at
 * 10,000 parameters.
 */

/**
 * Drawn values as stored: an array in the run's order (or, in rows drawn before migration 0022's
 * version, an object by name).
 */
export type StoredValues = Values | number[];

/** Drawn values by name, from either stored form. */
export function valuesByName(names: readonly string[], stored: StoredValues): Values {
  return Array.isArray(stored) ? thetaOfArray(names, stored) : stored;
}

/** θ by name as stored: its values in the run's order. */
export function thetaArray(names: readonly string[], theta: Values): number[] {
  return names.map((name) => {
    const value = theta[name];
    if (value === undefined) throw new Error(`θ has no value for parameter ${name}`);
    return value;
  });
}

/** A stored θ (values in the run's order) by name. */
export function thetaOfArray(names: readonly string[], values: readonly number[]): Values {
  if (values.length !== names.length)
    throw new RangeError(`${values.length} values stored for ${names.length} parameters`);
  const theta: Values = {};
  names.forEach((name, i) => (theta[name] = values[i]!));
  return theta;
}
