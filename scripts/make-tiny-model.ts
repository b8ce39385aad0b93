/**
 * Builds a tiny but REAL embedding model in the transformers.js layout, so the real
 * loading + inference path (tokenizer.json → ONNX session → pooling) can be tested
 * offline in Node and in a browser worker:
 *   <dir>/config.json, tokenizer.json, tokenizer_config.json, modules.json,
 *   1_Pooling/config.json (mean), onnx/model.onnx (one Gather: input_ids → last_hidden_state).
 * Weights are a fixed function of (token, dim) (seeded PRNG), so every build is byte-identical.
 * Nothing is committed: tests build it into a temp dir.
 *
 *   npx tsx scripts/make-tiny-model.ts [outDir]   (default .cache/memtrace/tiny-model)
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import onnxProto from 'onnx-proto';
import { seededRandom } from '../src/core/random.ts';

const { onnx } = onnxProto;

const TINY_DIMS = 32;
export const TINY_NAME = 'memtrace-tiny-embedder';

const SPECIAL = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
const WORDS = (
  'the a an and or but of to in on at for with from by about as is was were be been are am i you he she ' +
  'we they it my your his her our their me him us them this that what when where who why how which did do ' +
  'does have has had not no yes can will would should could go went going gone come came see saw like love ' +
  'support group lgbtq caroline melanie paint painted painting sunrise sunset friend friends family kids ' +
  'child children work job school career counseling psychology art class race run running camping beach ' +
  'book books read reading music song concert trip travel vacation dog cat pet pets birthday may june july ' +
  'august year years month week day today yesterday tomorrow morning night new old good great happy sad ' +
  'memory store retrieval answer question fact facts message date time 2022 2023 one two three'
).split(' ');
const PIECES = [
  '##s',
  '##ed',
  '##ing',
  '##er',
  '##ly',
  '##y',
  '##e',
  '##a',
  '##o',
  '##i',
  '##n',
  '##t',
  '##r',
];
const LETTERS = 'abcdefghijklmnopqrstuvwxyz0123456789'.split('');

function tinyVocab(): string[] {
  const seen = new Set<string>();
  const out: string[] = [];
  for (const t of [...SPECIAL, ...WORDS, ...LETTERS, ...PIECES, ...LETTERS.map((c) => `##${c}`)]) {
    if (!seen.has(t)) {
      seen.add(t);
      out.push(t);
    }
  }
  return out;
}

/** Deterministic weights: mulberry32 from a fixed seed, rounded to 1/1024 (exact in float32). */
function tinyWeights(vocabSize: number, dims = TINY_DIMS): Float32Array {
  const next = seededRandom(0x6d656d74); // "memt"
  const w = new Float32Array(vocabSize * dims);
  for (let i = 0; i < w.length; i++) w[i] = Math.round((next() * 2 - 1) * 1024) / 1024;
  w.fill(0, 0, dims); // [PAD] embeds to zero
  return w;
}

function onnxModel(vocabSize: number, dims: number, weights: Float32Array): Uint8Array {
  const T = onnx.TensorProto.DataType;
  const dim = (p: string | number) => (typeof p === 'number' ? { dimValue: p } : { dimParam: p });
  const valueInfo = (name: string, elemType: number, shape: (string | number)[]) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: shape.map(dim) } } },
  });
  const model = onnx.ModelProto.create({
    irVersion: 8,
    producerName: 'memtrace make-tiny-model',
    producerVersion: '1',
    opsetImport: [{ domain: '', version: 13 }],
    graph: {
      name: 'tiny-embedder',
      node: [
        {
          opType: 'Gather',
          input: ['embeddings', 'input_ids'],
          output: ['last_hidden_state'],
          name: 'lookup',
          attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }],
        },
      ],
      initializer: [
        {
          name: 'embeddings',
          dataType: T.FLOAT,
          dims: [vocabSize, dims],
          rawData: new Uint8Array(weights.buffer, weights.byteOffset, weights.byteLength),
        },
      ],
      input: [valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length'])],
      output: [valueInfo('last_hidden_state', T.FLOAT, ['batch_size', 'sequence_length', dims])],
    },
  });
  return onnx.ModelProto.encode(model).finish();
}

function tokenizerJson(vocab: string[]) {
  const ids = Object.fromEntries(vocab.map((t, i) => [t, i]));
  const special = (id: string) => ({ id, ids: [ids[id]], tokens: [id] });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content) => ({
      id: ids[content],
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
      ],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: { '[CLS]': special('[CLS]'), '[SEP]': special('[SEP]') },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab: ids,
    },
  };
}

/** Writes the model into `dir` (created). Returns the files written, relative to dir. */
export async function makeTinyModel(dir: string): Promise<string[]> {
  const vocab = tinyVocab();
  const weights = tinyWeights(vocab.length);
  const files: Record<string, string | Uint8Array> = {
    'config.json': JSON.stringify(
      {
        model_type: 'bert',
        architectures: ['BertModel'],
        hidden_size: TINY_DIMS,
        vocab_size: vocab.length,
        max_position_embeddings: 128,
        num_hidden_layers: 0,
        num_attention_heads: 1,
        pad_token_id: 0,
      },
      null,
      2,
    ),
    'tokenizer.json': JSON.stringify(tokenizerJson(vocab), null, 2),
    'tokenizer_config.json': JSON.stringify(
      {
        tokenizer_class: 'BertTokenizer',
        do_lower_case: true,
        model_max_length: 128,
        pad_token: '[PAD]',
        unk_token: '[UNK]',
        cls_token: '[CLS]',
        sep_token: '[SEP]',
        mask_token: '[MASK]',
        clean_up_tokenization_spaces: true,
      },
      null,
      2,
    ),
    'modules.json': JSON.stringify([
      { idx: 0, name: '0', path: '', type: 'sentence_transformers.models.Transformer' },
      { idx: 1, name: '1', path: '1_Pooling', type: 'sentence_transformers.models.Pooling' },
      { idx: 2, name: '2', path: '2_Normalize', type: 'sentence_transformers.models.Normalize' },
    ]),
    '1_Pooling/config.json': JSON.stringify({
      word_embedding_dimension: TINY_DIMS,
      pooling_mode_cls_token: false,
      pooling_mode_mean_tokens: true,
      pooling_mode_max_tokens: false,
      pooling_mode_mean_sqrt_len_tokens: false,
    }),
    'onnx/model.onnx': onnxModel(vocab.length, TINY_DIMS, weights),
  };
  for (const [rel, content] of Object.entries(files)) {
    const p = join(dir, rel);
    await mkdir(join(p, '..'), { recursive: true });
    await writeFile(p, content);
  }
  return Object.keys(files);
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const dir = process.argv[2] ?? join('.cache', 'memtrace', TINY_NAME);
  const files = await makeTinyModel(dir);
  console.log(`tiny model (${files.length} files) written to ${dir}`);
}
