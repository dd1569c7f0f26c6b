// Where stored files live (docs/files.md): a folder on this machine, or an S3-compatible bucket.
import path from 'node:path';
import { boolean, ConfigError, integer, type Env } from './config-values.ts';

export interface S3Config {
  /** FILES_S3_BUCKET: the bucket; setting it moves new files to object storage. */
  bucket: string;
  /** FILES_S3_REGION: the bucket's region (required with the bucket; S3-compatible services usually take `us-east-1`). */
  region: string;
  /** FILES_S3_ENDPOINT: an S3-compatible service's address (MinIO, R2, …); null: AWS itself. */
  endpoint: string | null;
  /** FILES_S3_PATH_STYLE: `true` (or `1`) addresses `endpoint/bucket/key` (default when an endpoint is given), `false` `bucket.endpoint/key`. */
  forcePathStyle: boolean;
  /** FILES_S3_ACCESS_KEY_ID and FILES_S3_SECRET_ACCESS_KEY, together; null: the SDK's own chain (AWS_* variables, profile, instance role). */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** FILES_S3_PREFIX: prepended to every key (several installs in one bucket), default empty. */
  prefix: string;
}

export interface FilesConfig {
  /** FILES_DIR: the folder of the disk store, default DATA_DIR/files (live/ and sandbox/ below it). */
  dir: string;
  /** Null: files are kept on disk under `dir`. */
  s3: S3Config | null;
  /** FILES_SWEEP_GRACE_HOURS: an unreferenced object younger than this is never swept (a write may be about to commit), default 24. */
  sweepGraceMs: number;
}

function s3Config(env: Env): S3Config | null {
  const bucket = (env.FILES_S3_BUCKET ?? '').trim();
  if (bucket === '') {
    const stray = ['FILES_S3_ENDPOINT', 'FILES_S3_REGION', 'FILES_S3_ACCESS_KEY_ID', 'FILES_S3_SECRET_ACCESS_KEY', 'FILES_S3_PREFIX'].find((v) => env[v]);
    // A half-configured bucket must not silently leave files on this disk.
    if (stray) throw new ConfigError(stray, 'is set but FILES_S3_BUCKET is not: set the bucket too, or unset it');
    return null;
  }
  const region = (env.FILES_S3_REGION ?? '').trim();
  if (region === '') throw new ConfigError('FILES_S3_REGION', 'is required with FILES_S3_BUCKET (S3-compatible services usually accept us-east-1)');
  const rawEndpoint = (env.FILES_S3_ENDPOINT ?? '').trim();
  let endpoint: string | null = null;
  if (rawEndpoint !== '') {
    try {
      const u = new URL(rawEndpoint);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
    } catch {
      throw new ConfigError('FILES_S3_ENDPOINT', `is not an http(s) URL, got "${rawEndpoint}"`);
    }
    endpoint = rawEndpoint.replace(/\/+$/, '');
  }
  const accessKeyId = env.FILES_S3_ACCESS_KEY_ID ?? '';
  const secretAccessKey = env.FILES_S3_SECRET_ACCESS_KEY ?? '';
  if ((accessKeyId === '') !== (secretAccessKey === '')) {
    throw new ConfigError(accessKeyId ? 'FILES_S3_SECRET_ACCESS_KEY' : 'FILES_S3_ACCESS_KEY_ID', 'must be set together with the other one');
  }
  const prefix = (env.FILES_S3_PREFIX ?? '').trim();
  if (prefix !== '' && !/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*\/$/.test(prefix)) {
    throw new ConfigError('FILES_S3_PREFIX', `must be path segments ending in "/" (e.g. "pinkas/"), got "${prefix}"`);
  }
  return {
    bucket,
    region,
    endpoint,
    // Custom endpoints (MinIO, local S3 servers) mostly want path-style addressing.
    forcePathStyle: boolean(env, 'FILES_S3_PATH_STYLE', endpoint !== null),
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null,
    prefix,
  };
}

export function filesConfig(env: Env, dataDir: string): FilesConfig {
  const dir = (env.FILES_DIR ?? '').trim();
  return {
    dir: dir === '' ? path.join(dataDir, 'files') : path.resolve(dir),
    s3: s3Config(env),
    sweepGraceMs: integer(env, 'FILES_SWEEP_GRACE_HOURS', 24, { min: 1, max: 24 * 365 }) * 3_600_000,
  };
}
