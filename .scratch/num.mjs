import nlp from 'compromise';
for (const t of ['Seven years now, and I have two kids', 'I ran my first marathon', 'twenty-five dollars', 'I went there three times', 'one of them']) {
  const d = nlp(t); d.numbers().toNumber(); console.log(d.text());
}
const d = nlp('I just signed up for a pottery class. We went camping and slept in tents.');
d.compute('root'); console.log(d.json().map(s=>s.terms.map(t=>t.root||t.normal).join(' ')));
