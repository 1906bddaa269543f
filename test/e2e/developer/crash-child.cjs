/* eslint-disable */
// The service in a child process for the crash test, run from the TypeScript sources (no build):
// TypeScript is transpiled to CommonJS on require, `src/...` resolves from the repository root.
// It boots like src/main.ts, prints `{"port": n}` once listening and, after the first transaction
// that wrote outbox rows commits (and before any relay could run), kills itself with SIGKILL.
const Module = require('node:module');
const path = require('node:path');
const fs = require('node:fs');
const ts = require('typescript');

const root = path.resolve(__dirname, '../../..');
const resolveFilename = Module._resolveFilename;
Module._resolveFilename = function (request, parent, ...rest) {
  if (request.startsWith('src/')) request = path.join(root, request);
  try {
    return resolveFilename.call(this, request, parent, ...rest);
  } catch (error) {
    if (request.startsWith('.') || path.isAbsolute(request)) {
      for (const candidate of [`${request}.ts`, path.join(request, 'index.ts'), request.replace(/\.js$/, '.ts')]) {
        try {
          return resolveFilename.call(this, candidate, parent, ...rest);
        } catch {}
      }
    }
    throw error;
  }
};
Module._extensions['.ts'] = function (module, filename) {
  const output = ts.transpileModule(fs.readFileSync(filename, 'utf8'), {
    fileName: filename,
    compilerOptions: {
      module: ts.ModuleKind.CommonJS,
      target: ts.ScriptTarget.ES2022,
      experimentalDecorators: true,
      emitDecoratorMetadata: true,
      esModuleInterop: true,
      useDefineForClassFields: false,
    },
  });
  module._compile(output.outputText, filename);
};

require('reflect-metadata');
const { loadConfig } = require('src/core/config/app-config');
const { createApp } = require('src/create-app');
const { EventBus } = require('src/core/events/event-bus');

(async () => {
  const app = await createApp(loadConfig(process.env));
  await app.listen(0, '127.0.0.1');
  app.get(EventBus).onOutboxWritten(() => process.kill(process.pid, 'SIGKILL'));
  process.stdout.write(`${JSON.stringify({ port: app.getHttpServer().address().port })}\n`);
})().catch((error) => {
  process.stderr.write(`${error && error.stack}\n`);
  process.exit(1);
});
