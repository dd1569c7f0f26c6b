import { AppError } from '../../platform/errors.ts';
import type { Config } from '../../platform/config.ts';
import { storableCopy } from '../../platform/http/input.ts';
import { OCR_INSTRUCTIONS, RECEIPT_JSON_SCHEMA } from './extraction.ts';

/** Reads a receipt and answers the model's structured extraction. */
export interface OcrProvider {
  readonly model: string;
  extract(file: { bytes: Uint8Array; mime: string; name: string }): Promise<Record<string, unknown>>;
}

export const providerError = (message: string) => new AppError('provider', `OCR provider: ${message}`);

/**
 * A vision-capable model behind an OpenAI-compatible chat-completions API, asked for JSON that
 * matches RECEIPT_JSON_SCHEMA (`response_format: json_schema`, strict). Images go as an
 * `image_url` part holding a data URI; PDFs as a `file` part (`file_data` data URI), the
 * chat-completions form for documents.
 */
export class ChatCompletionsOcr implements OcrProvider {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    readonly model: string,
    private readonly timeoutMs: number,
  ) {}

  async extract(file: { bytes: Uint8Array; mime: string; name: string }): Promise<Record<string, unknown>> {
    const dataUri = `data:${file.mime};base64,${Buffer.from(file.bytes).toString('base64')}`;
    const attachment =
      file.mime === 'application/pdf'
        ? { type: 'file', file: { filename: file.name, file_data: dataUri } }
        : { type: 'image_url', image_url: { url: dataUri } };
    const body = {
      model: this.model,
      temperature: 0,
      messages: [
        { role: 'system', content: OCR_INSTRUCTIONS },
        { role: 'user', content: [{ type: 'text', text: 'Extract the purchase document fields.' }, attachment] },
      ],
      response_format: { type: 'json_schema', json_schema: { name: 'israeli_purchase_document', strict: true, schema: RECEIPT_JSON_SCHEMA } },
    };
    let res: Response;
    try {
      res = await fetch(`${this.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.apiKey}` },
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (err) {
      const timedOut = (err as Error).name === 'TimeoutError';
      throw providerError(timedOut ? `no answer within ${this.timeoutMs} ms` : 'the service could not be reached');
    }
    const text = await res.text().catch(() => '');
    if (!res.ok) throw providerError(`the service answered HTTP ${res.status}`);
    let payload: { choices?: { message?: { content?: unknown; refusal?: unknown } }[] };
    try {
      payload = JSON.parse(text);
    } catch {
      throw providerError('the answer is not JSON');
    }
    const message = payload?.choices?.[0]?.message;
    if (message?.refusal) throw providerError('the model refused to read the document');
    const content = message?.content;
    if (typeof content !== 'string') throw providerError('the answer has no message content');
    let parsed: unknown;
    try {
      parsed = JSON.parse(content);
    } catch {
      throw providerError('the model did not answer JSON');
    }
    if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw providerError('the model did not answer a JSON object');
    // The raw extraction is stored as jsonb, which refuses NUL (and a lone surrogate has no UTF-8):
    // a model that echoes such bytes from a receipt must not turn the scan into a 500.
    return storableCopy(parsed) as Record<string, unknown>;
  }
}

/** The configured provider, or null when OCR is not configured (calls then answer 503 `unconfigured`). */
export function ocrProviderFrom(config: Config): OcrProvider | null {
  const o = config.expenses.ocr;
  return o ? new ChatCompletionsOcr(o.baseUrl, o.apiKey, o.model, o.timeoutMs) : null;
}
