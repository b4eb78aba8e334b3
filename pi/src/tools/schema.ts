/*
 * A string enum as a plain JSON-schema enum, the shape every provider
 * takes (pi's advice: not a union of literals).  Same as pi-ai's
 * StringEnum, kept here so only typebox is imported as a value.
 */
import { type TNumber, type TUnsafe, Type } from "typebox";

export function StringEnum<T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
	return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/**
 * An integer parameter in [min, max].  The schema is a number with its
 * bounds, so pi refuses what lies outside them, naming the parameter;
 * not an integer, because pi's conversion would then cut 0.5 to 0 (and 0
 * often means "all").  intArg refuses the fractions, and checks the rest
 * again for hosts that skip or loosen the validation.  A number never
 * goes out cut down, or as 1e+21.
 */
export function Int(min: number, max: number, description: string): TNumber {
	return Type.Number({ minimum: min, maximum: max, description: `${description}; a whole number from ${min} to ${max}` });
}

/** value as an integer in [min, max] (dflt when absent), or an error naming the parameter. */
export function intArg(tool: string, name: string, value: unknown, min: number, max: number, dflt: number): number {
	if (value === undefined) return dflt;
	if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max) return value;
	const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
	throw new Error(`${tool}: ${name} must be an integer from ${min} to ${max}, not ${shown}`);
}
