# swarm-gate: a static binary in a small image that runs as a non-root user.
# The git CLI is included because swarm-gate diffs faster with it; without it
# swarm-gate falls back to its built-in go-git diff.
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/swarm-gate ./cmd/swarm-gate

FROM alpine:3.22
RUN apk add --no-cache git ca-certificates \
 && adduser -D -H -u 65532 swarmgate \
 && git config --system --add safe.directory '*'
COPY --from=build /out/swarm-gate /usr/local/bin/swarm-gate
USER 65532:65532
ENTRYPOINT ["/usr/local/bin/swarm-gate"]
