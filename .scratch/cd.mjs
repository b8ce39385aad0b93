import nlp from 'compromise';
import dates from 'compromise-dates';
nlp.plugin(dates);
const tests = [
 ['I just took my fam camping in the mountains last week - it was a really nice time', '2023-06-27'],
 ['The week before 27 June 2023', '2023-06-27'],
 ['two weekends before 17 July 2023', '2023-07-17'],
 ['I had a quiet weekend after we went camping with my fam two weekends ago', '2023-07-17'],
 ['The sunday before 25 May 2023', '2023-05-25'],
 ['I ran a charity race last Sunday', '2023-05-25'],
 ['I just signed up for a pottery class yesterday.', '2023-07-03'],
 ['2 July 2023', '2023-07-03'],
 ['Melanie went camping with her family in June 2023.', '2023-07-03'],
 ['We are thinking about going camping next month.', '2023-05-25'],
 ['Last Fri I finally took my kids to a pottery workshop.', '2023-07-15'],
 ['Yeah, I painted that lake sunrise last year!', '2023-05-08'],
 ['2022', '2023-05-08'],
 ['The Friday before 15 July 2023', '2023-07-15'],
 ['a few weeks ago', '2023-09-13'],
];
let t0 = performance.now();
for (const [t, today] of tests) {
  const d = nlp(t).dates({ today, timezone: 'UTC' }).json();
  console.log(t, '=>', JSON.stringify(d.map(x => [x.text, x.dates?.start?.slice(0,10), x.dates?.end?.slice(0,10)])));
}
console.log('ms', performance.now() - t0);
t0 = performance.now();
for (let i=0;i<200;i++) nlp('I just took my fam camping in the mountains last week - it was a really nice time').dates({today:'2023-06-27'}).json();
console.log('per call ms', (performance.now()-t0)/200);
t0 = performance.now();
for (let i=0;i<200;i++) nlp('I just took my fam camping in the mountains last week - it was a really nice time').terms().json();
console.log('per parse ms', (performance.now()-t0)/200);
