/** Identity rules of smartcomment variables: ids are built from fields, never split on ':'. */

/** `class_name:name`, or `name` when there is no class. */
export function fullNameOf(name: string, className: string | null | undefined): string {
  return className == null ? name : `${className}:${name}`;
}

/** The primary key of a variable: `full_name@version`. */
export function fullNodeIdOf(name: string, className: string | null | undefined, version: number): string {
  return `${fullNameOf(name, className)}@${version}`;
}

/** Splits `full_name@version` on the last `@` (names may themselves contain `@` and `:`). */
export function splitFullNodeId(id: string): { fullName: string; version: number } | null {
  const at = id.lastIndexOf('@');
  if (at <= 0) return null;
  const version = Number(id.slice(at + 1));
  if (!Number.isInteger(version) || version < 1) return null;
  return { fullName: id.slice(0, at), version };
}
