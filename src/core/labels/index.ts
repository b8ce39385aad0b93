export * from './annotations-file.ts';
export * from './choose.ts';
export * from './file-labels.ts';
export * from './incoming.ts';
export * from './op-kinds.ts';
export * from './record.ts';
