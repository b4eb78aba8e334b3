/*
 * A string enum as a plain JSON-schema enum, the shape every provider
 * takes (pi's advice: not a union of literals).  Same as pi-ai's
 * StringEnum, kept here so only typebox is imported as a value.
 */
import { type TUnsafe, Type } from "typebox";

export function StringEnum<T extends readonly string[]>(values: T, options: { description?: string; default?: T[number] } = {}): TUnsafe<T[number]> {
	return Type.Unsafe<T[number]>({ type: "string", enum: [...values], ...options });
}
