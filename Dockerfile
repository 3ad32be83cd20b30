# iari as a container image, for the Kubernetes examples in deploy/k8s/ (docs/load.md, "Kubernetes").
#
#   docker build -t registry.example/iari:0.1.0 .
#   docker run --rm -e IARI_TOKEN registry.example/iari:0.1.0 load --base-url https://llm.example/v1 --duration 30s
#
# The first stage installs the dev dependencies (the build needs them) and runs `npm pack`, which
# runs the package's own prepack build, if any; the image installs only that tarball with its
# production dependencies, so it holds exactly what a user gets from the registry.
FROM node:24-slim AS pack
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm pack --pack-destination /tmp && mv /tmp/iari-*.tgz /tmp/iari.tgz

FROM node:24-slim
ENV NODE_ENV=production
# Debian's CA bundle: iari trusts the operating system's roots besides Node's (docs/load.md, TLS).
RUN apt-get update && apt-get install -y --no-install-recommends ca-certificates && rm -rf /var/lib/apt/lists/*
COPY --from=pack /tmp/iari.tgz /tmp/iari.tgz
RUN npm install --global --omit=dev --no-audit --no-fund /tmp/iari.tgz && rm /tmp/iari.tgz && npm cache clean --force
# The node image's unprivileged user (uid 1000); the Kubernetes manifests run as it too.
USER node
WORKDIR /home/node
ENTRYPOINT ["iari"]
CMD ["--help"]
