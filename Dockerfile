# swarm-gate: a static binary in a small image with git.
#
# As the GitHub Action (action.yml: args [action]) the container runs as
# root, as GitHub requires of container actions (with USER it could not
# write GITHUB_OUTPUT or the workspace); swarm-gate only reads git objects
# and never runs anything from the repository it checks. The workspace
# belongs to the runner's user: go-git does not check ownership, and
# swarm-gate's git CLI calls use a private git directory of their own
# (GIT_CONFIG_NOSYSTEM, no repository config), so git's "dubious
# ownership" refusal cannot break them; the system-wide safe.directory is
# for git commands run by hand in the image.
FROM golang:1.26-alpine AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
ARG VERSION=dev
RUN CGO_ENABLED=0 go build -trimpath -ldflags "-s -w -X main.version=${VERSION}" -o /out/swarm-gate ./cmd/swarm-gate

FROM alpine:3.22
RUN apk add --no-cache git ca-certificates \
 && git config --system --add safe.directory '*' \
 && printf '%s\n' '#!/bin/sh' \
      '# The action'"'"'s post step (action.yml post-entrypoint): complete, as failure,' \
      '# any check run the main step left in progress.' \
      'exec /usr/local/bin/swarm-gate action --mode cleanup' > /usr/local/bin/swarm-gate-post \
 && chmod 755 /usr/local/bin/swarm-gate-post
COPY --from=build /out/swarm-gate /usr/local/bin/swarm-gate
ENTRYPOINT ["/usr/local/bin/swarm-gate"]
