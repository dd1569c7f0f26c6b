/** What the test passes to, and expects from, each generated client's lifecycle program. */
export interface LifecycleOptions {
  baseUrl: string;
  /** A sandbox key with the businesses, documents and export scopes. */
  key: string;
  /** Makes Idempotency-Keys unique to this run. */
  run: string;
  /** Injected so the test bounds the wait for the PDF. */
  sleep: (ms: number) => Promise<void>;
  maxPolls: number;
}

export interface LifecycleResult {
  businessId: string;
  documentId: string;
  docNumber: number | null;
  creditNote: { id: string; docType: number };
  /** Document ids in list order, gathered page by page. */
  listed: string[];
  pdf: Uint8Array;
  zip: Uint8Array;
}
