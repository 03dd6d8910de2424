# swarm-gate built from source: what action.yml's `image: Dockerfile` builds
# on the default branch and in forks of the Action. Releases do not use this
# file: GoReleaser builds the binaries once and Dockerfile.release puts them
# in the same runtime image (keep the two runtime stages alike;
# TestDockerfilesAgree checks the base image and packages).
#
# Targets: `action` (the last stage, so the default: runs as root, see
# below) and `app` (the GitHub App, `swarm-gate serve`: a non-root user and
# a HEALTHCHECK on /healthz). docker build --target app -t swarm-gate-app .
#
# Base images are pinned by digest (the tag beside it says what the digest
# was taken from; update both together). The release workflow checks that
# both digests still resolve to images for linux/amd64 and linux/arm64.
#
# As the GitHub Action the container runs as root, as GitHub requires of
# container actions (its "Dockerfile support" docs: Docker actions must run
# as the default Docker user, root, and must not use USER, or they cannot
# access GITHUB_WORKSPACE, which the runner's user owns); swarm-gate only reads git objects and never runs
# anything from the repository it checks. The workspace belongs to the
# runner's user: go-git does not check ownership, and swarm-gate's git CLI
# calls use a private git directory of their own (GIT_CONFIG_NOSYSTEM, no
# repository config), so git's "dubious ownership" refusal cannot break
# them; the system-wide safe.directory is for git commands run by hand in
# the image.
FROM golang:1.26-alpine@sha256:7a3e50096189ad57c9f9f865e7e4aa8585ed1585248513dc5cda498e2f41812c AS build
# The official image sets GOTOOLCHAIN=local, which would build with
# whatever 1.26.x the digest holds; auto makes the go command switch to the
# toolchain go.mod's toolchain line names (fetched through GOPROXY), so the
# image is built with the same Go as the tests and the release binaries.
ENV GOTOOLCHAIN=auto CGO_ENABLED=0
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download && go version
COPY . .
ARG VERSION=dev
RUN go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/swarm-gate ./cmd/swarm-gate

FROM alpine:3.22@sha256:14358309a308569c32bdc37e2e0e9694be33a9d99e68afb0f5ff33cc1f695dce AS runtime
RUN apk add --no-cache git ca-certificates \
 && git config --system --add safe.directory '*' \
 && printf '%s\n' '#!/bin/sh' \
      '# The action'"'"'s post step (action.yml post-entrypoint): complete, as failure,' \
      '# any check run the main step left in progress.' \
      'exec /usr/local/bin/swarm-gate action --mode cleanup' > /usr/local/bin/swarm-gate-post \
 && chmod 755 /usr/local/bin/swarm-gate-post
COPY --from=build /out/swarm-gate /usr/local/bin/swarm-gate
ENTRYPOINT ["/usr/local/bin/swarm-gate"]

# The App: nothing it does needs root (it listens on 8080, clones into the
# temporary directory), so it runs as an unprivileged user with a fixed
# uid/gid for volume permissions (mount the private key readable by 10001).
FROM runtime AS app
RUN addgroup -S -g 10001 swarm-gate && adduser -S -D -H -u 10001 -G swarm-gate -s /sbin/nologin swarm-gate
USER 10001:10001
EXPOSE 8080
# /healthz on the port of SWARM_GATE_LISTEN (default :8080), over loopback:
# a listener bound to one other address needs its own check.
HEALTHCHECK --interval=30s --timeout=5s --start-period=10s --retries=3 \
  CMD l="${SWARM_GATE_LISTEN:-:8080}"; wget -q -O /dev/null "http://127.0.0.1:${l##*:}/healthz" || exit 1
CMD ["serve"]

# Last, so that a plain `docker build` (and action.yml's image: Dockerfile)
# gives the Action's image.
FROM runtime AS action
