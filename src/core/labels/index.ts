/** Label records (file / person / agent / imported / adjudicated), annotations files, label choices, import classification. */

export { type AnnotationsFile, readLabelFile, toAnnotationsFile } from './annotations-file.ts';
export {
  FILE_CHOICE,
  isLabelChoice,
  type LabelChoice,
  type LabelChoiceOption,
  labelChoices,
  labelsFor,
} from './choose.ts';
export { contextOf, fileLabels } from './file-labels.ts';
export { classifyIncoming, type IncomingLabel } from './incoming.ts';
export { canCause, causeRefusal, type OpKind, opStage } from './op-kinds.ts';
export {
  ADJUDICATED_SOURCE,
  AGENT_SOURCE,
  annotatorOf,
  caseKey,
  ENGINE_SOURCE,
  FILE_SOURCE,
  type LabelContext,
  type LabelRecord,
  latestByAnnotator,
  oldestFirst,
  PERSON_SOURCE,
  splitCaseKey,
} from './record.ts';
