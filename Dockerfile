# Build with the official Swift image (the toolchain NavState is tested with) and
# libmicrohttpd-dev and libpq-dev; run on a slim image that has only the shared libraries.
# `Tests/docker/check` reproduces the build stage without a Docker engine: it copies exactly the
# paths named by this stage's COPY lines into an empty folder and runs its RUN lines there.
FROM swift:6.3-bookworm AS build
RUN apt-get update && apt-get install -y --no-install-recommends libmicrohttpd-dev libpq-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
COPY Benchmarks/CoreBenchmarks ./Benchmarks/CoreBenchmarks
RUN swift build -c release --product navstate --static-swift-stdlib
# The binary alone: the built-in graphs and the web client are compiled into it.
RUN mkdir -p /out && cp "$(swift build -c release --show-bin-path)/navstate" /out/

FROM debian:bookworm-slim
RUN apt-get update && apt-get install -y --no-install-recommends libmicrohttpd12 libpq5 curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --no-create-home navstate
COPY --from=build /out/ /app/
USER navstate
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=2s --retries=3 CMD curl -fsS http://127.0.0.1:8080/healthz || exit 1
ENTRYPOINT ["/app/navstate", "--host", "0.0.0.0", "--port", "8080"]
