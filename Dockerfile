# The production image of the API server and its worker (docker-compose.yml runs both from it).
# Node 24 LTS; pnpm from npm (corepack cannot always fetch it); ffmpeg for video thumbnails and analyses.
FROM node:24-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg ca-certificates && rm -rf /var/lib/apt/lists/*
RUN npm install --global --no-fund --no-audit pnpm@10.34.9
WORKDIR /app
COPY . .
RUN pnpm install --frozen-lockfile && pnpm build --filter=@persona-api/api... --filter=@persona-api/console && pnpm deploy --filter=@persona-api/api --prod --legacy /srv/api

FROM node:24-bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends ffmpeg ca-certificates && rm -rf /var/lib/apt/lists/*
WORKDIR /srv/api
COPY --from=build /srv/api .
# The web console's static build, where the server looks for it (apps/console/dist beside apps/api).
COPY --from=build /app/apps/console/dist /srv/console/dist
# Two glibc malloc arenas: with one per thread, freed native memory stayed fragmented and the server's RSS
# after a full GC crept up 9 % over 300 000 requests; with two it stayed flat (bench/README.md, soak).
ENV NODE_ENV=production PORT=8080 MALLOC_ARENA_MAX=2
EXPOSE 8080
USER node
CMD ["node", "dist/main.js"]
