/** Identity strategies: the name a variable is recorded under. */
import { contentName, pyTypeName } from './encode.ts';
import type { VariableOptions } from './options.ts';

/**
 * Names variables like the toolkit: a custom `name`, object identity `<type>:<id>` (ids
 * counted from the toolkit's CPython-like base, one per object), or by content
 * `<type>:<sha1 of json.dumps(value)>`.
 */
export class VariableNamer {
  private readonly objectIds = new WeakMap<object, number>();
  private nextObjectId = 0x7f0000000000;
  constructor(private readonly sha1: (text: string) => string) {}

  nameFor(value: unknown, options: VariableOptions): string {
    if (options.name !== undefined) return options.name;
    if (options.identity === 'object' && typeof value === 'object' && value !== null) {
      let id = this.objectIds.get(value);
      if (id === undefined) {
        id = this.nextObjectId;
        this.nextObjectId += 16;
        this.objectIds.set(value, id);
      }
      return `${pyTypeName(value)}:${id}`;
    }
    if (options.identity === 'custom') throw new Error("identity 'custom' needs a name");
    return contentName(value, this.sha1);
  }
}
