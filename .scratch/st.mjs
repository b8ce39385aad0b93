import { stemmer } from 'stemmer';
import lem from 'wink-lemmatizer';
for (const w of ['running','runs','ran','went','camping','camped','enrolled','signed','classes','children','kids','took','painted','bought','mountains','therapeutic','headspace','counseling','counselling','agencies','adoption','adopted'])
  console.log(w, stemmer(w), lem.verb(w), lem.noun(w), lem.adjective(w));
