import { type INestApplication, ValidationPipe } from '@nestjs/common';
import type { NestExpressApplication } from '@nestjs/platform-express';
import { SwaggerModule } from '@nestjs/swagger';
import type { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import type { AppConfig } from 'src/core/config/app-config';
import { validationException } from 'src/core/errors/validation-errors';
import { HttpExceptionFilter } from 'src/core/errors/http-exception.filter';
import { httpMetricsMiddleware } from 'src/core/metrics/http-metrics';
import { FastRoutes } from './fast-routes';
import { inputGuard } from './input-guard';
import { buildOpenApiDocument, openApiDocumentOf } from './openapi';
import { requestIdOf } from './request-id';

/** JSON bodies up to this size; platform webhooks batch, so it is well above their 3 MB. */
export const JSON_BODY_LIMIT = '5mb';

export const VALIDATION_PIPE = new ValidationPipe({
  whitelist: true,
  forbidNonWhitelisted: true,
  transform: true,
  transformOptions: { enableImplicitConversion: false },
  exceptionFactory: validationException,
});

/** Everything main.ts and the e2e tests share: one app, configured once. */
export function configureApp(app: NestExpressApplication, config: AppConfig): INestApplication {
  app.enableShutdownHooks();
  // Security headers on every answer (nosniff, frame-ancestors/X-Frame-Options, HSTS, referrer policy, CSP).
  const securityHeaders = helmet();
  // Hot routes' lean handlers (webhook acks) come first, in front of Express itself: they answer only
  // the ordinary request, with the same security headers, and hand everything else on, body unread,
  // to Express and what follows.
  app.get(FastRoutes).serveBefore(app.getHttpServer(), securityHeaders);
  app.use(securityHeaders);
  app.useBodyParser('json', { limit: JSON_BODY_LIMIT });
  app.useBodyParser('urlencoded', { limit: JSON_BODY_LIMIT, extended: true });
  // After the parsers, before guards and pipes: NUL and deep nesting are a 400, never a 500.
  app.use(inputGuard);
  app.disable('x-powered-by');
  // TRUST_PROXY decides how the client IP (login limits) is read behind a load balancer.
  app.set('trust proxy', config.http.trustProxy);
  app.use(httpMetricsMiddleware);
  app.use((req: Request, res: Response, next: NextFunction) => {
    res.setHeader('x-request-id', requestIdOf(req));
    next();
  });
  app.useGlobalPipes(VALIDATION_PIPE);
  app.useGlobalFilters(new HttpExceptionFilter());

  if (config.corsOrigins) {
    app.enableCors({
      origin: config.corsOrigins === '*' ? '*' : [...config.corsOrigins],
      credentials: false,
      allowedHeaders: ['authorization', 'content-type', 'x-workspace-id', 'x-request-id'],
      exposedHeaders: ['x-request-id', 'retry-after'],
      maxAge: 600,
    });
  }

  // /docs and /docs-json: on in development and test, off in production unless DOCS_ENABLED=true.
  if (!config.http.docsEnabled) return app;
  // A browser opening the bare URL lands on the API documentation.
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method === 'GET' && req.path === '/') return res.redirect(302, '/docs');
    next();
  });
  // Built on the first request to /docs, /docs-json or /docs-yaml, not at start-up (about 0.3 s of
  // CPU on every start otherwise; issue 16 item 6). One document per app, whoever builds it first.
  SwaggerModule.setup('docs', app, () => openApiDocumentOf(app) ?? buildOpenApiDocument(app, config), {
    jsonDocumentUrl: 'docs-json',
    yamlDocumentUrl: 'docs-yaml',
    swaggerOptions: { persistAuthorization: true },
  });
  return app;
}
