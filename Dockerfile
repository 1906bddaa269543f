# One image for both roles: APP_ROLE=api or worker (docker-compose.yml), or all.
# Node 22 LTS (Node 20 is past end of life). The repository's engines/CI stay >=20.19 because the
# development and CI machines run Node 20; the code runs on both (docs/decisions.md, issue 15).
FROM node:22-bookworm-slim AS build
WORKDIR /app
# swagger-ui-dist's postinstall would report the build to a third party otherwise.
ENV SCARF_ANALYTICS=false
COPY package.json package-lock.json ./
COPY scripts ./scripts
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY migrations ./migrations
COPY bench ./bench
RUN npm run build && npm prune --omit=dev

FROM node:22-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=build --chown=node:node /app/node_modules ./node_modules
COPY --from=build --chown=node:node /app/dist ./dist
COPY --chown=node:node package.json ./
# Not root. DATA_DIR (only used without DATABASE_URL) must be writable by this user.
RUN mkdir -p /app/data && chown node:node /app/data
USER node
EXPOSE 4000
# api/all: GET /health/live answers; worker: its heartbeat file is fresh (src/healthcheck.ts).
HEALTHCHECK --interval=15s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/src/healthcheck.js"]
# --v8-pool-size=1: as `npm start` (src/core/runtime/start-command.ts; docs/operations.md, "Memory").
CMD ["node", "--v8-pool-size=1", "dist/bundle/main.js"]
