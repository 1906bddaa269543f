/* eslint-disable */
// The service in a child process for the crash test, from tsc's output in dist/src (the test runs
// `node scripts/build.mjs --quiet` first, which compiles only when a source changed, as `npm run cli`
// does). It boots like src/main.ts, prints `{"port": n}` once listening and, after the first
// transaction that wrote outbox rows commits (and before any relay could run), kills itself with SIGKILL.
const path = require('node:path');

const dist = path.resolve(__dirname, '../../../dist/src');
require('reflect-metadata');
const { loadConfig } = require(path.join(dist, 'core/config/app-config.js'));
const { createApp } = require(path.join(dist, 'create-app.js'));
const { EventBus } = require(path.join(dist, 'core/events/event-bus.js'));

(async () => {
  const app = await createApp(loadConfig(process.env));
  await app.listen(0, '127.0.0.1');
  app.get(EventBus).onOutboxWritten(() => process.kill(process.pid, 'SIGKILL'));
  process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port })}\n`);
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
