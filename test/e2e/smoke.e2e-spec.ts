import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { type TestApp, createTestApp } from '../utils/test-app';
import { loginAdmin } from '../utils/sessions';

describe('smoke', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it('serves health and logs the admin in', async () => {
    const health = await t.http.get('/health').expect(200);
    expect(health.body.info.database.status).toBe('up');
    const admin = await loginAdmin(t);
    const me = await t.http.get('/permissions/me').set(admin.headers).expect(200);
    expect(me.body.role).toBe('ADMIN');
  });
});
