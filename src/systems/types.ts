/** One conversation of a data set, in the shape every reference system consumes. */

export type DatasetName = 'locomo' | 'realmem' | 'longmemeval';

export interface Turn {
  /** Unique within the conversation (LoCoMo `dia_id`, RealMem `<session uuid>:<index>`, …). */
  id: string;
  speaker: string;
  role: 'user' | 'assistant';
  text: string;
  /** Memories an LLM recorded from this turn in the data set (LoCoMo observations, RealMem extracted memories). */
  recorded?: RecordedMemory[];
}

/** A text an LLM wrote from the conversation, with the turns it came from (replayed by the `recorded` memories mode). */
export interface RecordedMemory {
  text: string;
  /** Turn ids it was written from (LoCoMo `dia_id`s, RealMem `source_turn`); empty when the data set names none. */
  sources: string[];
  /** The data set's own type of the memory (`observation`, RealMem `Static` / `Dynamic` / `Schedule`). */
  kind: string;
}

export interface ConversationSession {
  /** 1-based position. */
  index: number;
  id: string;
  /** The session's date/time as the data set writes it. */
  dateTime: string;
  turns: Turn[];
  /** The session summary an LLM wrote (LoCoMo `session_summary`). */
  summary?: string;
  /** Recorded memories of the session whose source turn the data set does not name. */
  recorded?: RecordedMemory[];
}

export interface Question {
  id: string;
  question: string;
  answers: string[];
  /** Turn ids holding the answer. */
  evidence: string[];
  /** Category name (LoCoMo: multi-hop, temporal, …; RealMem/LongMemEval: their type names). */
  category: string;
  /**
   * The question is asked before this session (1-based) is added to memory; only earlier
   * sessions may be used. `sessions.length + 1` means after the whole conversation.
   */
  askedBefore: number;
  /** Date of the question when the data set gives one. */
  date?: string;
}

export interface Conversation {
  dataset: DatasetName;
  id: string;
  speakers: string[];
  sessions: ConversationSession[];
  questions: Question[];
}
