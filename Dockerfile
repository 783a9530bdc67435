# The retrywise container image: the GitHub container action (action.yml,
# runs.using: docker) and `docker run` outside GitHub (docs/container-image.md).
# Built by .github/workflows/release.yml for amd64 and arm64, and by
# scripts/test-container with buildah.

# Only what the classic builder understands too (no RUN --mount, no
# $BUILDPLATFORM, no syntax directive): a tool that builds the action through
# the Docker API, as act does, gets the API's default builder, which is the
# classic one unless it asks for BuildKit.

# The build stage: a static binary. The tag's Go is go.mod's major.minor
# (scripts/test-container checks that they agree).
FROM golang:1.26-bookworm AS build
# How the build reaches the Go module proxy: the public defaults unless the
# builder passes its own with --build-arg. They live in this stage only.
ARG GOPROXY=https://proxy.golang.org,direct GOSUMDB=sum.golang.org GONOSUMDB= GOFLAGS=
WORKDIR /src
COPY go.mod go.sum ./
# A corporate CA (ca-certificates/*.crt, none in the repository; see its
# README.md): go reads every PEM file of SSL_CERT_DIR, so the module
# download trusts it behind a TLS-inspecting proxy. This stage only.
COPY ca-certificates/ /usr/local/share/ca-certificates/
ENV SSL_CERT_DIR=/usr/local/share/ca-certificates:/etc/ssl/certs
RUN go mod download
COPY . .
# The version `retrywise version` prints (main.version), e.g. v1.2.3; empty
# means the module's, or (devel). Declared here, so a new version reuses the
# module download above.
ARG VERSION=
RUN CGO_ENABLED=0 go build -trimpath -buildvcs=false \
	-ldflags "-s -w -X main.version=${VERSION}" \
	-o /out/retrywise ./cmd/retrywise

# The runtime: what run scripts and push mode call (git, curl, ssh, bash). It
# runs as root, as GitHub requires of a container action; the runner mounts
# the workspace at /github/workspace and sets the working directory.
FROM debian:bookworm-slim
RUN apt-get update \
	&& apt-get install -y --no-install-recommends bash ca-certificates curl git openssh-client \
	&& rm -rf /var/lib/apt/lists/*
# The same corporate CA, for git and curl: added to the system bundle only
# when ca-certificates/ holds one.
COPY ca-certificates/ /usr/local/share/ca-certificates/
RUN if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then update-ca-certificates; fi
COPY --from=build /out/retrywise /usr/local/bin/retrywise
ENTRYPOINT ["/usr/local/bin/retrywise"]
