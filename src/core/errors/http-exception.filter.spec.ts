import { describe, expect, it } from '@jest/globals';
import { QueryFailedError } from 'typeorm';
import { HttpExceptionFilter, loggableError } from './http-exception.filter';

function pgError(code: string): QueryFailedError {
  const driver = Object.assign(new Error('driver says'), { code, table: 'users', constraint: 'c1' });
  return new QueryFailedError('INSERT INTO users VALUES ($1, $2)', ['secret-hash', 'x'], driver);
}

describe('HttpExceptionFilter: database errors (issue 9)', () => {
  const filter = new HttpExceptionFilter();
  it.each(['22021', '22P05', '22001', '22P02', '54001'])('maps SQLSTATE %s to 400 validation_failed', (code) => {
    const { body } = filter.toBody(pgError(code), 'rid');
    expect(body).toMatchObject({ statusCode: 400, code: 'validation_failed', requestId: 'rid', details: [] });
  });

  it('still answers 500 for other database errors, and logs no parameter values', () => {
    const error = pgError('XX000');
    expect(filter.toBody(error, 'rid').body.statusCode).toBe(500);
    const logged = JSON.stringify(loggableError(error));
    expect(logged).not.toContain('secret-hash');
    expect(logged).toContain('XX000');
    expect(logged).toContain('users');
    expect(logged).toContain('c1');
  });
});

describe('HttpExceptionFilter: database unavailable (503, not 500)', () => {
  const filter = new HttpExceptionFilter();

  it('answers 503 with Retry-After for a refused connection (a real node-postgres error)', async () => {
    const { createServer } = await import('node:net');
    const { Client } = await import('pg');
    // A port nobody listens on: bind one, note it, close it.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const error = await new Client({ host: '127.0.0.1', port, connectionTimeoutMillis: 2_000 })
      .connect()
      .then(() => null, (e: unknown) => e);
    expect(error).not.toBeNull();
    const { body, headers } = filter.toBody(error, 'rid');
    expect(body).toMatchObject({ statusCode: 503, code: 'unavailable', requestId: 'rid' });
    expect(headers).toEqual({ 'Retry-After': '5' });
  });

  it.each(['57P01', '57P03', '08006', '53300'])('answers 503 for SQLSTATE %s', (code) => {
    expect(filter.toBody(pgError(code), 'rid').body.statusCode).toBe(503);
  });

  it('answers 503 when node-postgres reports the connection ended mid-query', () => {
    const ended = new QueryFailedError('SELECT 1', [], new Error('Connection terminated unexpectedly'));
    expect(filter.toBody(ended, 'rid').body).toMatchObject({ statusCode: 503, code: 'unavailable' });
  });
});
