import { loadWordVectors } from '../src/core/semantic/word-vectors.node.ts';
let t0 = performance.now();
const wv = loadWordVectors(undefined, console.log);
console.log('load ms', performance.now() - t0, wv.size);
t0 = performance.now();
const wv2 = loadWordVectors();
console.log('reload ms', performance.now() - t0);
for (const [a,b] of [['camping','tents'],['pottery','ceramics'],['class','course'],['kids','children'],['june','july'],['headspace','mind'],['run','running']]) console.log(a,b,wv2.similarity(a,b));
