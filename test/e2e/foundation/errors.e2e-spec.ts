import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { DiscoveryService, MetadataScanner, Reflector } from '@nestjs/core';
import { ANY_MEMBER, IS_PUBLIC, NO_WORKSPACE, REQUIRED_PERMISSION } from 'src/core/auth/decorators/auth.decorators';
import { type TestApp, createTestApp } from '../../utils/test-app';
import { signupWorkspace } from '../../utils/sessions';

describe('error shape and HTTP platform', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('answers unknown routes with a JSON 404 and echoes x-request-id', async () => {
    const res = await t.http.get('/no/such/route').set('x-request-id', 'req-123').expect(404);
    expect(res.headers['x-request-id']).toBe('req-123');
    expect(res.body).toEqual({ statusCode: 404, code: 'not_found', message: 'Not found', requestId: 'req-123' });
    const generated = await t.http.post('/nothing').expect(404);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    expect(generated.body.requestId).toBe(generated.headers['x-request-id']);
  });

  it('answers malformed JSON with 400 invalid_json', async () => {
    const res = await t.http.post('/auth/login').set('content-type', 'application/json').send('{"email": ').expect(400);
    expect(res.body).toMatchObject({ statusCode: 400, code: 'invalid_json', requestId: expect.any(String) });
  });

  it('answers oversized bodies with 413 payload_too_large', async () => {
    const big = JSON.stringify({ email: 'a@b.c', password: 'x'.repeat(6 * 1024 * 1024) });
    const res = await t.http.post('/auth/login').set('content-type', 'application/json').send(big).expect(413);
    expect(res.body.code).toBe('payload_too_large');
  });

  it('refuses unknown fields with validation_failed and details', async () => {
    const admin = await signupWorkspace(t);
    const res = await t.http.put('/workspace').set(admin.headers).send({ name: 'ok', color: 'red' }).expect(400);
    expect(res.body).toMatchObject({
      statusCode: 400,
      code: 'validation_failed',
      message: 'color is not an allowed field',
      details: [{ field: 'color', message: 'is not an allowed field' }],
    });
    const wrongType = await t.http.put('/workspace').set(admin.headers).send({ name: 42 }).expect(400);
    expect(wrongType.body.details).toEqual([{ field: 'name', message: 'must be a string' }]);
  });

  it('says a missing required field "is required", naming the field, whatever its other rules', async () => {
    const res = await t.http.post('/auth/login').send({ email: 'a@example.com' }).expect(400);
    expect(res.body).toMatchObject({
      code: 'validation_failed',
      message: 'password is required',
      details: [{ field: 'password', message: 'is required' }],
    });
    const admin = await signupWorkspace(t);
    const list = await t.http.get('/conversations?status=closed').set(admin.headers).expect(400);
    expect(list.body.details[0].field).toBe('status');
    expect(list.body.details[0].message).not.toContain('status');
    expect(list.body.message.startsWith('status each value must be one of')).toBe(true);
  });

  it('maps a unique violation to 409 conflict without leaking SQL', async () => {
    const admin = await signupWorkspace(t);
    await t.http
      .post('/workspace/members')
      .set(admin.headers)
      .send({ email: 'dup@example.com', name: 'D', role: 'AGENT', password: 'password-123' })
      .expect(201);
    const res = await t.http
      .post('/auth/signup')
      .send({ workspaceName: 'W', name: 'D', email: 'dup@example.com', password: 'password-123' })
      .expect(409);
    expect(res.body.code).toBe('conflict');
    expect(JSON.stringify(res.body)).not.toMatch(/duplicate key|users_email_key|SELECT|INSERT/i);
  });

  it('serves the OpenAPI document and Swagger UI', async () => {
    const doc = await t.http.get('/docs-json').expect(200);
    expect(doc.body.openapi).toMatch(/^3\./);
    for (const path of [
      '/auth/login',
      '/auth/signup',
      '/workspaces',
      '/workspace',
      '/workspace/members',
      '/workspace/members/{userId}',
      '/developer/tokens',
      '/developer/tokens/{id}',
      '/permissions',
      '/permissions/me',
      '/permissions/reset',
      '/health',
    ]) {
      expect(Object.keys(doc.body.paths)).toContain(path);
    }
    expect(doc.body.components.schemas.LoginDto.properties.email).toBeDefined();
    const ui = await t.http.get('/docs/').expect(200);
    expect(ui.text).toContain('swagger');
  });

  it('declares an access rule on every route (secure by default)', () => {
    const discovery = t.app.get(DiscoveryService);
    const scanner = t.app.get(MetadataScanner);
    const reflector = t.app.get(Reflector);
    const undeclared: string[] = [];
    let routes = 0;
    for (const wrapper of discovery.getControllers()) {
      const instance = wrapper.instance as Record<string, unknown> | undefined;
      if (!instance || !wrapper.metatype) continue;
      for (const name of scanner.getAllMethodNames(Object.getPrototypeOf(instance))) {
        const handler = instance[name];
        if (typeof handler !== 'function' || Reflect.getMetadata('path', handler) === undefined) continue;
        routes++;
        const targets = [handler, wrapper.metatype];
        const declared = [IS_PUBLIC, ANY_MEMBER, NO_WORKSPACE, REQUIRED_PERMISSION].some(
          (key) => reflector.getAllAndOverride(key, targets) !== undefined,
        );
        if (!declared) undeclared.push(`${wrapper.name}.${name}`);
      }
    }
    expect(routes).toBeGreaterThan(10);
    expect(undeclared).toEqual([]);
  });
});
