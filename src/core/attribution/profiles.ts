/**
 * Data profiles: what one dataset's traces write differently from others, named and chosen from
 * the trace itself (its messages' metadata), so that general rules never test a dataset's field
 * names. A result that a profile shaped says which profile it was.
 */
import { type TraceGraph, varMetadata } from '../graph/index.ts';
import { isMessageCategory } from '../trace/index.ts';

/** One dataset's conventions, as the attributor reads them. */
export interface DataProfile {
  id: 'locomo' | 'generic';
  /** Did this message share an image (whose content the trace may not show)? */
  sharesImage(meta: Record<string, unknown> | null, text: string): boolean;
}

/** The project's loaders write a shared image into the text ("[shares a photo: a dog on a beach]"). */
const LOADER_IMAGE = /\[(?:shares?|shared|sends?|sent) (?:a |an )?(?:photo|image|picture)[^\]]*\]/i;

/** LoCoMo's turns carry `dia_id`, and an image as `img_url` / `blip_caption`. */
const LOCOMO: DataProfile = {
  id: 'locomo',
  sharesImage: (meta, text) =>
    Boolean(meta && (meta.img_url || meta.blip_caption)) || LOADER_IMAGE.test(text),
};

/** Any other trace: an `image` field or the loaders' marker. */
const GENERIC: DataProfile = {
  id: 'generic',
  sharesImage: (meta, text) => Boolean(meta?.image) || LOADER_IMAGE.test(text),
};

const chosen = new WeakMap<TraceGraph, DataProfile>();

/** The trace's profile: LoCoMo when a message's metadata has LoCoMo's turn fields, else generic. */
export function profileOf(g: TraceGraph): DataProfile {
  let p = chosen.get(g);
  if (!p) {
    p = GENERIC;
    for (let v = 0; v < g.varId.length; v++) {
      if (!isMessageCategory(g.varCategory[v])) continue;
      const meta = varMetadata(g, v) as Record<string, unknown> | null;
      if (meta && ('dia_id' in meta || 'blip_caption' in meta || 'img_url' in meta)) {
        p = LOCOMO;
        break;
      }
    }
    chosen.set(g, p);
  }
  return p;
}
