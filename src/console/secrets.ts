import { createHmac, randomBytes, randomInt, timingSafeEqual, createHash } from 'node:crypto';
import { sql } from 'drizzle-orm';
import type { Database } from '../platform/db/engine.ts';
import { queryOne } from '../platform/db/sql.ts';

/**
 * The console's HMAC secret lives in the control database (made on first use), so every process
 * sharing that database signs and checks the same CSRF tokens with no configuration to get wrong.
 * One store per process, made by the composition root (src/services.ts); it reads the row once.
 */
export class ConsoleSecretStore {
  private loaded: Promise<Buffer> | null = null;

  constructor(private readonly control: Database) {}

  get(now: Date): Promise<Buffer> {
    if (!this.loaded) {
      const p = this.load(now);
      p.catch(() => {
        if (this.loaded === p) this.loaded = null;
      });
      this.loaded = p;
    }
    return this.loaded;
  }

  private async load(now: Date): Promise<Buffer> {
    await this.control.db.execute(
      sql`INSERT INTO console_secrets(name, value, created_at) VALUES ('hmac', ${randomBytes(32).toString('hex')}, ${now.toISOString()})
          ON CONFLICT (name) DO NOTHING`,
    );
    const row = await queryOne<{ value: string }>(this.control.db, sql`SELECT value FROM console_secrets WHERE name = 'hmac'`);
    return Buffer.from(row!.value, 'hex');
  }
}

declare module '../platform/http/services.ts' {
  interface Services {
    consoleSecrets: ConsoleSecretStore;
  }
}

function hmac(secret: Buffer, text: string): string {
  return createHmac('sha256', secret).update(text).digest('base64url');
}

export function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * CSRF token of a form: an HMAC bound to the signed-in session (synchronizer), or before sign-in
 * to the random value of the `pinkas_pre` cookie (signed double submit). A page of another origin
 * can neither read the token nor compute it.
 */
export function csrfToken(secret: Buffer, binding: string): string {
  return hmac(secret, `csrf:${binding}`);
}

export function csrfValid(secret: Buffer, binding: string, token: string): boolean {
  return token.length > 0 && sameSecret(csrfToken(secret, binding), token);
}

/** A code is stored as an HMAC bound to its session: a leaked table row reveals nothing usable. */
export function codeHash(secret: Buffer, sessionId: string, code: string): string {
  return hmac(secret, `code:${sessionId}:${code}`);
}

/** Six random digits, uniformly. */
export function newCode(): string {
  return String(randomInt(0, 1_000_000)).padStart(6, '0');
}

/** Session cookies carry 256 random bits; the database keeps only their SHA-256. */
export function newSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

export function tokenHash(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
