# One image for both processes: `node dist/main.js` (API) or `node dist/worker.js` (worker).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# The SDK is an npm workspace of the same lock file: npm ci needs its manifest (the image does not build it).
COPY clients/typescript/package.json ./clients/typescript/
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json nest-cli.json ./
COPY src ./src
COPY scripts/ensure-built.js ./scripts/
RUN npm run build:api && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The pages GET /llms.txt lists and serves (src/openapi/llms-txt.ts).
COPY README.md ./
COPY docs ./docs
# docker-compose mounts a named volume here (BLOB_STORAGE_DIR); a new volume takes this directory's
# owner, so it must exist and belong to node, or storing a picture copy fails with EACCES.
RUN mkdir -p /data/blobs && chown node:node /data/blobs
USER node
EXPOSE 3000
CMD ["node", "dist/main.js"]
