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
