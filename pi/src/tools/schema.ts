/* A string enum as a plain JSON-schema enum, as pi-ai's StringEnum, importing typebox alone. */
import { type TNumber, type TUnsafe, Type } from "typebox";

export function StringEnum<T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
	return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}

/**
 * An integer in [min, max], as a bounded number: an integer schema would
 * let pi cut 0.5 to 0, often "all".  intArg refuses fractions.
 */
export function Int(min: number, max: number, description: string): TNumber {
	return Type.Number({ minimum: min, maximum: max, description: `${description}; a whole number from ${min} to ${max}` });
}

export function intArg(tool: string, name: string, value: unknown, min: number, max: number, dflt: number): number {
	if (value === undefined) return dflt;
	if (typeof value === "number" && Number.isSafeInteger(value) && value >= min && value <= max) return value;
	const shown = typeof value === "number" ? String(value) : JSON.stringify(value);
	throw new Error(`${tool}: ${name} must be an integer from ${min} to ${max}, not ${shown}`);
}
