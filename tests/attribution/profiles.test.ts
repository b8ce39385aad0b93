/**
 * Data profiles: a dataset's conventions are chosen from the trace's own messages, and only the
 * chosen profile's fields mark an image (general rules never test a dataset's field names).
 */
import { describe, expect, it } from 'vitest';
import { profileOf } from '../../src/core/attribution/index.ts';
import { buildGraph } from '../../src/core/graph/index.ts';
import { DocBuilder } from '../helpers/doc-builder.ts';

function graphWith(metadata: Record<string, unknown>, said = "'Look at this.'") {
  const b = new DocBuilder();
  b.variable('D1:1', said, { category: 'message', metadata });
  return buildGraph(b.doc);
}

describe('data profiles', () => {
  it('LoCoMo when a message carries LoCoMo turn fields; its image fields mark an image', () => {
    const g = graphWith({ dia_id: 'D1:1', img_url: ['https://example.org/a.jpg'] });
    const p = profileOf(g);
    expect(p.id).toBe('locomo');
    expect(p.sharesImage({ img_url: ['x'] }, 'Look at this.')).toBe(true);
    expect(p.sharesImage({}, 'Look at this.')).toBe(false);
  });

  it('generic otherwise: LoCoMo field names mean nothing there, the loaders’ marker still does', () => {
    const g = graphWith({ timestamp: '1 May, 2023' });
    const p = profileOf(g);
    expect(p.id).toBe('generic');
    expect(p.sharesImage({ blip_caption: 'a dog' }, 'Look at this.')).toBe(false);
    expect(p.sharesImage({ image: 'a.png' }, 'Look at this.')).toBe(true);
    expect(p.sharesImage(null, 'Look [shares a photo: a dog on a beach]')).toBe(true);
  });
});
