import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
// s3rver ships no types: the little used here is declared in s3rver.d.ts beside this file.
import S3rver from 's3rver';

/**
 * A local S3-protocol server (s3rver, from the npm registry) on a free loopback port, with one bucket, its
 * objects in a temporary folder. s3rver checks the access key id of a signed request (only `S3RVER` is
 * known) but not the V4 signature itself, so "credentials refused" is tested with an unknown key id.
 */
export interface S3TestServer {
  endpoint: string;
  bucket: string;
  /** The environment that points pinkas at it. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3Server(bucket = 'pinkas-files'): Promise<S3TestServer> {
  const directory = mkdtempSync(path.join(tmpdir(), 'pinkas-s3rver-'));
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: [{ name: bucket, configs: [] }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    env: {
      FILES_S3_BUCKET: bucket,
      FILES_S3_ENDPOINT: endpoint,
      FILES_S3_REGION: 'us-east-1',
      FILES_S3_ACCESS_KEY_ID: 'S3RVER',
      FILES_S3_SECRET_ACCESS_KEY: 'S3RVER',
    },
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
