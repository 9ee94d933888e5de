# syntax=docker/dockerfile:1
# Images of Rubricon, built from the deployable folder that `pnpm build` assembles (docs/deployment.md):
#   docker build --target web -t rubricon-web .       the web + API server (also runs `migrate` and `worker`)
#   docker build --target worker -t rubricon-worker .  the worker with Debian's Chromium for autouser runs
#   docker build --target browser -t rubricon-browser . a Playwright browser server for workers to share
# Both steps live in tooling/scripts/image.sh, which a test runs outside Docker as it is.
ARG NODE_IMAGE=node:26-trixie-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
ENV NEXT_TELEMETRY_DISABLED=1 TURBO_TELEMETRY_DISABLED=1
COPY . .
RUN sh tooling/scripts/image.sh build /out

FROM ${NODE_IMAGE} AS web
ENV NODE_ENV=production NEXT_TELEMETRY_DISABLED=1 PORT=3000 DATA_DIR=/data
# The embedded database and generated development secrets (unused with DATABASE_URL and secrets set) go here.
RUN mkdir -p /data && chown node:node /data
COPY --from=build /out /app
# Next writes its cache (optimized images, fetch cache) beside the build; the rest of /app stays read-only.
RUN mkdir -p /app/apps/web/.next/cache && chown node:node /app/apps/web/.next/cache
USER node
WORKDIR /app
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD /app/image.sh health "$PORT"
ENTRYPOINT ["/app/image.sh", "start"]
CMD ["web"]

FROM web AS worker
USER root
RUN apt-get update \
  && apt-get install -y --no-install-recommends chromium fonts-liberation \
  && rm -rf /var/lib/apt/lists/*
USER node
ENV CHROMIUM_PATH=/usr/bin/chromium WORKER_HEALTH_PORT=3001
EXPOSE 3001
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 CMD /app/image.sh health "$WORKER_HEALTH_PORT"
CMD ["worker"]

# A browser server for workers (BROWSER_WS_ENDPOINT): Playwright's image carries the browsers of its version; the
# matching playwright-core (packages/agents) is installed here, at build time, so a start downloads nothing.
FROM mcr.microsoft.com/playwright:v1.65.1-noble AS browser
WORKDIR /opt/browser-server
RUN npm install --no-audit --no-fund playwright-core@1.65.1 && chown -R pwuser:pwuser /opt/browser-server
USER pwuser
EXPOSE 3000
CMD ["node", "node_modules/playwright-core/cli.js", "run-server", "--port", "3000", "--host", "0.0.0.0"]
